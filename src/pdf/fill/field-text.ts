// Text fields (and text drawn into signature widgets): /V plus one appearance per widget.
import { textStyle } from '../appearance/appearance-da.js';
import { widgetBox } from '../appearance/appearance-stream.js';
import { layoutText, type TextLayoutOptions } from '../appearance/appearance-text.js';
import type { RawField } from '../field-tree.js';
import {
  FF,
  fieldFlags,
  fieldInfo,
  fieldLabel,
  setFieldValue,
  showAppearance,
  type FillContext,
} from './fill-context.js';
import { N, hexTextString, inheritedNumber } from '../pdf-objects.js';
import { fitWarning, mustStayWhole, type TextFit } from '../appearance/text-fit.js';
import type { TextColor } from '../types.js';
import { MAX_MARKS_IN_A_ROW, streamSafe } from '../fonts/stream-safe.js';

/** Fill colour operators of the colours a display format may ask for (Acrobat's color.red, color.black). */
const COLOR_OPS: Record<TextColor, string> = { red: '1 0 0 rg', black: '0 g' };

export interface TextDrawOptions extends TextLayoutOptions {
  /** drawn in this colour instead of the /DA colour */
  color?: TextColor;
}

/**
 * Draws `display` into every widget of the field with the field's own /DA, /Q and flags. Numbers
 * and dates are shrunk rather than cut (text-fit.ts); a cut or a shrink is reported once per field.
 */
export function drawTextWidgets(fc: FillContext, field: RawField, value: string, opts: TextDrawOptions): void {
  const { color } = opts;
  const { text: display, dropped } = streamSafe(value);
  if (dropped > 0)
    fc.warnings.push(
      `field "${fieldLabel(fc, field)}": ${dropped} combining marks after the first ${MAX_MARKS_IN_A_ROW} in a row ` +
        "are not drawn (Unicode's stream-safe limit)",
    );
  // named, not spread: an object rest and spread per field were ~4 % of filling a 600-field form
  const layout: TextLayoutOptions = {
    multiline: opts.multiline,
    comb: opts.comb,
    whole: opts.whole ?? mustStayWhole(fieldInfo(fc, field), display),
  };
  const fits: TextFit[] = [];
  for (const widget of field.widgets) {
    const box = widgetBox(widget);
    if (!box) continue;
    const daStyle = textStyle(widget, fc.acroForm, fc.fonts);
    const style = color ? { ...daStyle, color: COLOR_OPS[color] } : daStyle;
    const laid = layoutText(display, box, style, fc.fonts, layout);
    fits.push(laid.fit);
    showAppearance(fc, widget, { box, content: laid.content, fonts: laid.fonts });
  }
  const warning = fitWarning(fieldLabel(fc, field), fits);
  if (warning) fc.warnings.push(warning);
}

/**
 * Sets (or, with null, clears) a text field's value and redraws it, in `color` when the format gives one;
 * `shown` is drawn instead of the value when they differ (a computed value and its format script's text).
 */
export function fillText(
  fc: FillContext,
  field: RawField,
  text: string | null,
  color?: TextColor,
  shown?: string,
): void {
  const flags = fieldFlags(field);
  const dict = field.dict;
  if (!fc.drawn) {
    // flattening drops the field dictionaries: their /V and /RV leave with them
    if (dict.has(N('RV'))) dict.delete(N('RV')); // a stale rich-text value would win over /V in Acrobat
    setFieldValue(field, text ? hexTextString(text) : undefined);
  }
  const value = shown ?? text ?? '';
  const display = flags & FF.password ? '*'.repeat(Array.from(value).length) : value;
  if (field.maxLen === undefined) field.maxLen = inheritedNumber(dict, 'MaxLen') ?? null;
  const maxLen = field.maxLen;
  const comb = flags & FF.comb && !(flags & (FF.multiline | FF.password)) && maxLen ? maxLen : undefined;
  drawTextWidgets(fc, field, display, {
    multiline: !!(flags & FF.multiline),
    comb,
    whole: flags & FF.password ? false : undefined,
    color,
  });
}
