// Writing request values into the fields of a loaded document: one value per field through the
// type-specific modules (text, choice, buttons, signatures), then flattening and the watermark.
// Works on any loaded document: the prepared (cached) template of prepare.ts uses it per render.
import type { PDFDict } from '@cantoo/pdf-lib';
import { inlineAppearanceStates } from '../appearance/appearance-states.js';
import { fillCheckbox, fillRadio, repairOnAppearances } from './field-button.js';
import { fillChoice } from './choice.js';
import { fillText } from './field-text.js';
import type { RawField } from '../field-tree.js';
import { FF, fieldFlags, fieldLabel, type FillContext } from './fill-context.js';
import { N, getDict, getNumbers, inherited, textOf } from '../pdf-objects.js';
import { shownArea } from '../page-geometry.js';
import { flatten, type PlacementCache } from './flatten.js';
import { PageWriter } from '../writer/page-content.js';
import type { BalanceCache } from '../content-balance.js';
import type { PageNode } from '../pages.js';
import { fillSignatureImage, fillSignatureText } from './signature-image.js';
import type { AnalysedField, FillRequest, FillValue, ScriptReport } from '../types.js';
import type { SessionPlan } from '../scripts/session-plan.js';
import type { ScriptSandbox } from '../scripts/sandbox.js';
import { startScripts, writeScriptResults } from './fill-scripts.js';
import { watermark } from './watermark.js';
import { isPrinted, isVisible } from './widget-flags.js';

type FieldType = 'Tx' | 'Btn' | 'Ch' | 'Sig';

function fieldType(field: RawField): FieldType | undefined {
  if (field.type === undefined) field.type = inherited(field.dict, 'FT') ?? null;
  const ft = field.type;
  // PDFName instances are interned: compare identities, no decoding.
  return ft === N('Tx') ? 'Tx' : ft === N('Btn') ? 'Btn' : ft === N('Ch') ? 'Ch' : ft === N('Sig') ? 'Sig' : undefined;
}

/**
 * Writes one value. Kinds that do not fit the field type are reported, not guessed at. Synchronous
 * but for signature images (decoding them is async): a 600-field render awaits nothing per field.
 * The `return void f()` branches call synchronous fillers; one that became async must be returned.
 */
function fillField(
  fc: FillContext,
  field: RawField,
  info: AnalysedField | undefined,
  value: FillValue,
): Promise<void> | undefined {
  const ft = fieldType(field);
  const flags = fieldFlags(field);
  const clear = value.kind === 'clear';
  const mismatch = () =>
    fc.warnings.push(
      `field "${fieldLabel(fc, field)}": a ${value.kind} value does not fit a ${ft ?? 'unknown'} field; skipped`,
    );
  switch (ft) {
    case 'Tx':
      if (clear) return void fillText(fc, field, null);
      if (value.kind === 'text') return void fillText(fc, field, value.text, value.color);
      if (value.kind === 'choice') return void fillText(fc, field, value.value);
      return void mismatch();
    case 'Ch':
      if (clear) return void fillChoice(fc, field, []);
      if (value.kind === 'choice') return void fillChoice(fc, field, [value.value]);
      if (value.kind === 'choices') return void fillChoice(fc, field, value.values);
      if (value.kind === 'text') return void fillChoice(fc, field, [value.text]);
      return void mismatch();
    case 'Btn': {
      if (flags & FF.pushbutton) return void mismatch();
      const radio = !!(flags & FF.radio);
      if (!radio) {
        if (clear) return void fillCheckbox(fc, field, false);
        if (value.kind === 'check') return void fillCheckbox(fc, field, value.checked, info?.detail.onStates?.[0]);
        if (value.kind === 'choice' || value.kind === 'text') {
          // A checkbox group with several on-states behaves like a radio group.
          const v = value.kind === 'choice' ? value.value : value.text;
          return void fillRadio(fc, field, v, stateHint(info, v));
        }
        return void mismatch();
      }
      if (clear) return void fillRadio(fc, field, null);
      if (value.kind === 'choice' || value.kind === 'text') {
        const v = value.kind === 'choice' ? value.value : value.text;
        return void fillRadio(fc, field, v, stateHint(info, v));
      }
      if (value.kind === 'check' && !value.checked) return void fillRadio(fc, field, null);
      return void mismatch();
    }
    case 'Sig':
      if (value.kind === 'image') return fillSignatureImage(fc, field, value.bytes, value.format);
      if (clear || value.kind === 'text') return void fillSignatureText(fc, field, clear ? null : value.text);
      return void mismatch();
    default:
      return void mismatch();
  }
}

/** The on-state name the analysis paired with a radio option, if any. */
function stateHint(info: AnalysedField | undefined, value: string): string | undefined {
  const i = info?.options?.indexOf(value) ?? -1;
  return i >= 0 ? info?.detail.optionStates?.[i] : undefined;
}

/**
 * Fields a viewer would only show by honouring /NeedAppearances (which we clear): widgets without
 * an appearance, or all of them when the template asked viewers to redraw; checkbox or radio
 * on-appearances that would show no proper mark (appearance-check.ts); and states that poppler
 * cannot find (appearance-states.ts). Data-independent: a prepared template runs it once; the
 * fields a render then sets are redrawn with their new values.
 */
export function redrawStale(fc: FillContext, fields: RawField[], needAppearances: boolean): void {
  for (const field of fields) {
    for (const w of field.widgets) inlineAppearanceStates(w);
    const ft = fieldType(field);
    if (ft === 'Btn' && !(fieldFlags(field) & FF.pushbutton)) repairOnAppearances(fc, field);
    if (ft !== 'Tx' && ft !== 'Ch') continue;
    const missing = field.widgets.some((w) => !getDict(w, 'AP'));
    if (!missing && !needAppearances) continue;
    const v = field.dict.lookup(N('V'));
    // An empty field without an appearance still gets one: viewers draw its border and background
    // from /MK, and so must the flattened page.
    if (ft === 'Tx') {
      const text = textOf(v);
      if (text || missing) fillText(fc, field, text || null);
    } else {
      const values = !v ? [] : textOf(v) !== undefined ? [textOf(v)!] : choiceValues(v);
      if (values.length || missing) fillChoice(fc, field, values);
    }
  }
}

function choiceValues(v: unknown): string[] {
  const arr = v as { size?: () => number; lookup?: (i: number) => unknown };
  if (typeof arr?.size !== 'function') return [];
  const out: string[] = [];
  for (let i = 0; i < arr.size(); i++) {
    const t = textOf(arr.lookup!(i) as never);
    if (t !== undefined) out.push(t);
  }
  return out;
}

/** Every widget of the field is off its page's shown area (or on no page): no viewer can show the value. */
function outsidePages(field: RawField, pages: PageNode[]): boolean {
  return field.widgets.every((w, i) => {
    const page = pages[field.widgetPages[i]];
    const rect = getNumbers(w, 'Rect');
    if (!page || rect?.length !== 4) return true;
    const [x0, y0, x1, y1] = shownArea(page.dict);
    const [rx0, rx1] = [Math.min(rect[0], rect[2]), Math.max(rect[0], rect[2])];
    const [ry0, ry1] = [Math.min(rect[1], rect[3]), Math.max(rect[1], rect[3])];
    return rx1 <= x0 || rx0 >= x1 || ry1 <= y0 || ry0 >= y1;
  });
}

/**
 * outsidePages() once per field and template: no render writes /Rect or a page's boxes (a render's
 * changes are undone after it), and on a 600-field form the check was a sixth of what a render allocated.
 */
function outsideCached(field: RawField, index: FieldIndex): boolean {
  let outside = index.outside.get(field);
  if (outside === undefined) {
    outside = outsidePages(field, index.pages);
    index.outside.set(field, outside);
  }
  return outside;
}

/** What a render needs to find fields: resolved once per template. */
export interface FieldIndex {
  catalog: PDFDict;
  pages: PageNode[];
  fields: RawField[];
  byName: Map<string, RawField>;
  infoByName: Map<string, AnalysedField>;
  /** q/Q balance of the pages' content streams, read once per template */
  balances: BalanceCache;
  /** where flattening draws each widget's appearance */
  placements: PlacementCache;
  /** per field: does every widget lie off its page's shown area (outsideCached), filled as renders meet them */
  outside: Map<RawField, boolean>;
}

export function indexFields(
  catalog: PDFDict,
  pages: PageNode[],
  fields: RawField[],
  analysisFields: AnalysedField[],
  balances: BalanceCache = new WeakMap(),
): FieldIndex {
  const byName = new Map<string, RawField>();
  for (const f of fields) if (!byName.has(f.fullName)) byName.set(f.fullName, f);
  return {
    catalog,
    pages,
    fields,
    byName,
    infoByName: new Map(analysisFields.map((f) => [f.pdfMeta.originalName, f])),
    balances,
    placements: new WeakMap(),
    outside: new Map(),
  };
}

/** The form's scripts and the sandbox that runs them, for a render of a form that has some. */
export interface RenderScripts {
  scripts: SessionPlan;
  sandbox: ScriptSandbox;
  /**
   * Work of the render's own that may run while the session does (in the sandbox's thread): called once
   * the caller's values are written, before the session's results are awaited, only when there is one.
   */
  meanwhile?: () => void;
}

/**
 * Writes every value of the request, runs the form's scripts (unless `request.calculate` is false), then
 * flattens and watermarks as asked. Returns what the scripts reported.
 */
export async function applyRequest(
  fc: FillContext,
  index: FieldIndex,
  request: FillRequest,
  scripting?: RenderScripts,
): Promise<ScriptReport> {
  const calculate = request.calculate !== false;
  const computed = new Set(scripting?.scripts.scripts.calculationOrder);
  // The scripts run in the sandbox's thread while this one writes the caller's values.
  const session =
    scripting && calculate ? startScripts(fc, index, request, scripting.scripts, scripting.sandbox) : undefined;
  session?.catch(() => undefined);
  for (const [name, value] of Object.entries(request.values)) {
    const field = index.byName.get(name);
    if (!field) {
      fc.warnings.push(`field "${name}" is not in the template; ignored`);
      continue;
    }
    const info = index.infoByName.get(name);
    // Read-only fields keep the template's value, except computed ones: validation passes a caller's value
    // for them only with `calculate: false` (the caller computes instead of the form); the engine's own
    // list of calculated fields covers analyses stored before `computed` existed.
    const callerComputes = !calculate && (info?.computed || computed.has(name));
    if (!callerComputes && (info?.pdfMeta.readOnly || fieldFlags(field) & FF.readOnly)) continue;
    const pending = fillField(fc, field, info, value);
    if (pending) await pending;
    const label = info?.name ?? name;
    if (field.widgets.every((w) => !isVisible(w))) {
      fc.warnings.push(`field "${label}" is hidden in the template; its value is stored but not shown`);
    } else if (value.kind !== 'clear' && outsideCached(field, index)) {
      fc.warnings.push(
        `field "${label}" lies outside its page's visible area (MediaBox/CropBox); its value is stored but never shown`,
      );
    } else if (request.flatten && value.kind !== 'clear' && field.widgets.every((w) => !isPrinted(w))) {
      fc.warnings.push(
        `field "${label}" is not printed (the template marks it screen-only); flattened, its value is not shown`,
      );
    }
  }
  if (session) scripting?.meanwhile?.();
  const report = scripting
    ? writeScriptResults(fc, index, request, scripting.scripts, await session)
    : { scriptWarnings: [], scriptRejections: [] };
  const writer = new PageWriter(fc.ctx, index.balances);
  if (request.flatten) flatten(fc, index.pages, writer, index.catalog, index.placements);
  if (request.watermark) watermark(fc, index.pages, writer, request.watermark);
  writer.commit();
  if (fc.fonts.missing.size > 0) {
    fc.warnings.push(
      `no bundled font can draw these characters, which were left out: ${[...fc.fonts.missing].join(' ')}`,
    );
  }
  return report;
}
