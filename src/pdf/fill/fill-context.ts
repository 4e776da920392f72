// State shared by the steps of one render: the document, its fonts and the warnings collected.
import type { PDFContext, PDFDict, PDFDocument, PDFObject } from '@cantoo/pdf-lib';
import { formXObject, setNormalAppearance, type FontNames, type WidgetBox } from '../appearance/appearance-stream.js';
import type { RawField } from '../field-tree.js';
import type { FontSet } from '../fonts/fonts.js';
import { deleteIfPresent, inheritedNumber, setChanged } from '../pdf-objects.js';
import type { AnalysedField } from '../types.js';

export interface FillContext {
  doc: PDFDocument;
  ctx: PDFContext;
  acroForm: PDFDict | undefined;
  fonts: FontSet;
  warnings: string[];
  /** the analysis of the template's fields by PDF full name (a render has it; template preparation not) */
  fieldInfo?: ReadonlyMap<string, AnalysedField>;
  /**
   * Set when the render flattens: the new appearance of each text widget, kept here instead of written
   * into the widget (field dictionaries leave the output, so text values need no /V either; a choice or
   * button state still decides which appearance is drawn); flatten.ts draws it straight into the page.
   */
  drawn?: Map<PDFDict, DrawnAppearance>;
}

/** A widget's new appearance before it becomes a stream: operators for its box, and the fonts they name. */
export interface DrawnAppearance {
  box: Readonly<WidgetBox>;
  content: string;
  fonts: FontNames;
}

/** Gives the widget its new normal appearance: a Form XObject in its /AP, or (flattening) fc.drawn. */
export function showAppearance(fc: FillContext, widget: PDFDict, drawn: DrawnAppearance): void {
  if (fc.drawn) fc.drawn.set(widget, drawn);
  else setNormalAppearance(widget, formXObject(widget, drawn.box, drawn.content, drawn.fonts.resources(widget)));
}

/** The field's analysis, when the render has it. */
export function fieldInfo(fc: FillContext, field: RawField): AnalysedField | undefined {
  return fc.fieldInfo?.get(field.fullName);
}

/** How warnings name a field: its schema `name` (the key callers know), else its PDF name. */
export function fieldLabel(fc: FillContext, field: RawField): string {
  return fieldInfo(fc, field)?.name ?? field.fullName;
}

/** Field flag bits (PDF 32000-1, tables 221, 226, 228, 230). */
export const FF = {
  readOnly: 1 << 0,
  multiline: 1 << 12,
  password: 1 << 13,
  noToggleToOff: 1 << 14,
  radio: 1 << 15,
  pushbutton: 1 << 16,
  combo: 1 << 17,
  edit: 1 << 18,
  multiSelect: 1 << 21,
  comb: 1 << 24,
  radiosInUnison: 1 << 25,
} as const;

export function fieldFlags(field: RawField): number {
  field.flags ??= inheritedNumber(field.dict, 'Ff') ?? 0;
  return field.flags;
}

/**
 * Sets (or with undefined removes) the field's /V. A /V left on a widget kid would shadow it in
 * viewers that resolve inherited keys from the widget up (pdf.js, pdftk), so those go.
 */
export function setFieldValue(field: RawField, value: PDFObject | undefined): void {
  if (value) setChanged(field.dict, 'V', value);
  else deleteIfPresent(field.dict, 'V');
  for (const w of field.widgets) if (w !== field.dict) deleteIfPresent(w, 'V');
}
