// The format and keystroke actions that make a text field a date or a number field, written as
// Acrobat writes them (AFDate_FormatEx, AFNumber_Format): viewers format what is typed, and the
// analyser (analysis/format-action.ts) types the field `date` or `number` from them.
import { PDFHexString, type PDFContext, type PDFDict } from '@cantoo/pdf-lib';
import type { NewField } from '../types.js';

const DEFAULT_DATE_FORMAT = 'mm/dd/yyyy';
const DEFAULT_DECIMALS = 2;

function javaScript(ctx: PDFContext, code: string): PDFDict {
  return ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText(code) });
}

/** The /AA of a new date or number field; undefined for other types. */
export function formatActions(ctx: PDFContext, field: NewField): PDFDict | undefined {
  if (field.type === 'date') {
    // The pattern was checked against a plain character set (validate-edits.ts); quoted as a JS string.
    const pattern = JSON.stringify(field.dateFormat ?? DEFAULT_DATE_FORMAT);
    return ctx.obj({
      F: javaScript(ctx, `AFDate_FormatEx(${pattern});`),
      K: javaScript(ctx, `AFDate_KeystrokeEx(${pattern});`),
    });
  }
  if (field.type === 'number') {
    // decimals, sepStyle 0 ("1,234.56"), negStyle 0 (minus sign), currency "" not prepended
    const args = `${field.decimals ?? DEFAULT_DECIMALS}, 0, 0, 0, "", false`;
    return ctx.obj({
      F: javaScript(ctx, `AFNumber_Format(${args});`),
      K: javaScript(ctx, `AFNumber_Keystroke(${args});`),
    });
  }
  return undefined;
}
