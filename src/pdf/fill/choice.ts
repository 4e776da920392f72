// Choice fields. /V holds the export value(s); the appearance shows the display text: combo boxes
// draw it like a single-line text field, list boxes draw their visible options with the selected
// ones highlighted (what a viewer shows, so it survives flattening).
import { PDFArray, PDFNumber } from '@cantoo/pdf-lib';
import { textStyle } from '../appearance/appearance-da.js';
import { FontNames, formXObject, frameOps, setNormalAppearance, widgetBox } from '../appearance/appearance-stream.js';
import { num } from '../content-ops.js';
import type { RawField } from '../field-tree.js';
import { drawTextWidgets } from './field-text.js';
import { FF, fieldFlags, setFieldValue, type FillContext } from './fill-context.js';
import { N, hexTextString, inherited, textOf } from '../pdf-objects.js';
import { showUnits } from '../fonts/text-shaping.js';

/** Acrobat's selection highlight. */
const HIGHLIGHT = '0.6 0.75 0.87 rg';

export interface ChoiceOption {
  exportValue: string;
  label: string;
}

/** /Opt entries: a string, or an [export display] pair. */
function choiceOptions(field: RawField): ChoiceOption[] {
  const opt = inherited(field.dict, 'Opt');
  if (!(opt instanceof PDFArray)) return [];
  const out: ChoiceOption[] = [];
  for (let i = 0; i < opt.size(); i++) {
    const e = opt.lookup(i);
    if (e instanceof PDFArray) {
      const exportValue = textOf(e.lookup(0)) ?? '';
      out.push({ exportValue, label: textOf(e.lookup(1)) ?? exportValue });
    } else {
      const t = textOf(e) ?? '';
      out.push({ exportValue: t, label: t });
    }
  }
  return out;
}

/** Index of a value: export value first, then display text (callers may send either). */
function indexOf(options: ChoiceOption[], value: string): number {
  const i = options.findIndex((o) => o.exportValue === value);
  return i >= 0 ? i : options.findIndex((o) => o.label === value);
}

/** Sets a dropdown / list box to `values` (empty = cleared) and redraws it. */
export function fillChoice(fc: FillContext, field: RawField, values: string[]): void {
  const flags = fieldFlags(field);
  const options = choiceOptions(field);
  const dict = field.dict;
  const picked = values.map((v) => ({ value: v, index: indexOf(options, v) }));
  const exportOf = (p: { value: string; index: number }) => (p.index >= 0 ? options[p.index].exportValue : p.value);
  setFieldValue(
    field,
    picked.length === 0
      ? undefined
      : picked.length === 1
        ? hexTextString(exportOf(picked[0]))
        : fc.ctx.obj(picked.map((p) => hexTextString(exportOf(p)))),
  );
  const indices = [...new Set(picked.map((p) => p.index).filter((i) => i >= 0))].sort((a, b) => a - b);
  if (indices.length > 0) dict.set(N('I'), fc.ctx.obj(indices));
  else dict.delete(N('I'));

  if (flags & FF.combo) {
    const p = picked[0];
    drawTextWidgets(fc, field, p ? (p.index >= 0 ? options[p.index].label : p.value) : '', {});
  } else {
    drawListBox(fc, field, options, new Set(indices));
  }
}

function drawListBox(fc: FillContext, field: RawField, options: ChoiceOption[], selected: Set<number>): void {
  const ti = field.dict.lookup(N('TI'));
  let top = ti instanceof PDFNumber ? Math.max(0, Math.floor(ti.asNumber())) : 0;
  for (const widget of field.widgets) {
    const box = widgetBox(widget);
    if (!box) continue;
    const style = textStyle(widget, fc.acroForm, fc.fonts);
    const size = style.size || 12;
    const lineH = size * 1.15;
    const visible = Math.max(1, Math.floor((box.height - 2 * box.border) / lineH));
    const first = Math.min(...selected, Infinity);
    // Scroll so the first selected option is visible, as viewers do when they open the form.
    if (first !== Infinity && (first < top || first >= top + visible)) top = first;
    const names = new FontNames();
    const ops: string[] = [
      frameOps(box),
      '/Tx BMC q',
      `${num(box.border)} ${num(box.border)} ${num(box.width - 2 * box.border)} ${num(box.height - 2 * box.border)} re W n`,
    ];
    for (let i = top; i < Math.min(options.length, top + visible); i++) {
      const yTop = box.height - box.border - (i - top) * lineH;
      if (selected.has(i))
        ops.push(
          `${HIGHLIGHT} ${num(box.border)} ${num(yTop - lineH)} ${num(box.width - 2 * box.border)} ${num(lineH)} re f`,
        );
      const units = fc.fonts.shape(options[i].label.replace(/[\r\n\t]+/g, ' '), style.font);
      const shows = showUnits(units, size, (font) => names.name(font));
      ops.push(`BT ${style.color} 1 0 0 1 ${num(2 + box.border)} ${num(yTop - size * 0.9)} Tm ${shows} ET`);
    }
    ops.push('Q EMC');
    setNormalAppearance(widget, formXObject(widget, box, ops.filter(Boolean).join('\n'), names.resources(widget)));
  }
  field.dict.set(N('TI'), PDFNumber.of(top));
}
