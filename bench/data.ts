// Render data generated from a template's schema with every fillable field set, so each bench does the
// worst-case amount of work: text up to maxLength, checkboxes on, first option for radios/dropdowns,
// valid dates/numbers, and values that fit AFSpecial/mask/time formats (no "written as sent" warnings).
import type { AnalysedField, FieldFormat } from '../src/pdf/types.js';

const SPECIAL: Record<number, string> = { 0: '12345', 1: '123456789', 2: '5551234567', 3: '123456789' };

/** A value that fits an AFSpecial / KeystrokeEx mask / AFTime format, or undefined for free text. */
function formattedText(format: FieldFormat | undefined): string | undefined {
  switch (format?.kind) {
    case 'special':
      return SPECIAL[format.psf];
    case 'specialEx':
      // mask letters: 9 digit, A letter, O letter/digit, X anything; other characters are literals
      return Array.from(format.mask, (c) => ({ '9': '1', A: 'A', O: 'B', X: 'X' })[c] ?? c).join('');
    case 'time':
      return '14:30';
    default:
      return undefined;
  }
}

function textFor(field: AnalysedField, index: number): string {
  const fitted = formattedText(field.detail.format);
  if (fitted !== undefined) return fitted;
  const max = field.maxLength;
  // comb fields (one character per cell) are all digits in practice: fill every cell
  if (field.detail.comb && max) return '1234567890'.repeat(Math.ceil(max / 10)).slice(0, max);
  const text = field.detail.multiline ? `Line one of field ${index}\nLine two, Zoe & co.` : `Sample value ${index}`;
  return max && max > 0 ? text.slice(0, max) : text;
}

export interface GeneratedData {
  data: Record<string, unknown>;
  /** fields left out and why (read-only, or nothing valid to send) */
  skipped: string[];
}

/** JSON render data keyed by schema field name. */
export function generateData(fields: AnalysedField[]): GeneratedData {
  const data: Record<string, unknown> = {};
  const skipped: string[] = [];
  fields.forEach((field, i) => {
    if (field.pdfMeta.readOnly) {
      skipped.push(`${field.name} (read-only)`);
      return;
    }
    const options = field.options ?? [];
    switch (field.type) {
      case 'text':
        data[field.name] = textFor(field, i);
        break;
      case 'signature':
        data[field.name] = 'J. Sample';
        break;
      case 'checkbox':
        // A checkbox group with several on states (one per widget) takes the state to turn on.
        data[field.name] = (field.detail.onStates?.length ?? 0) > 1 ? field.detail.onStates![0] : true;
        break;
      case 'radio':
        if (options.length) data[field.name] = options[0];
        else skipped.push(`${field.name} (radio without options)`);
        break;
      case 'dropdown':
        if (options.length) data[field.name] = field.detail.multiSelect ? [options[0]] : options[0];
        else if (field.detail.editable) data[field.name] = 'Other';
        else skipped.push(`${field.name} (dropdown without options)`);
        break;
      case 'date':
        data[field.name] = '2024-03-15';
        break;
      case 'number':
        data[field.name] = 1234.5;
        break;
      default:
        skipped.push(`${field.name} (type ${String(field.type)})`);
    }
  });
  return { data, skipped };
}

/** The JSON body of POST /v1/renders the bench sends (en-US, UTC, as validateData was given). */
export function renderBody(templateId: string, data: Record<string, unknown>, flatten: boolean): string {
  return JSON.stringify({ templateId, data, options: { flatten, locale: 'en-US', timezone: 'UTC' } });
}
