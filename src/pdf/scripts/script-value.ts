// What a form script sees as a field's value. The engine receives display text (render-data formats a
// number 1234.5 as "1.234,50" for AFNumber sepStyle 2); Acrobat's scripts see the value a person types,
// which is the number without grouping, with the format's decimal mark ("1234,50"; AFMakeNumber and
// AFNumber_Keystroke read both marks by sepStyle). Other formats (dates, masks) are typed as displayed.
import type { FieldFormat, FillValue } from '../types.js';
import type { ScriptField } from './form-model.js';

/** AFNumber sepStyle: [group separator, decimal mark] (as render-data's formatter writes them). */
const SEPARATORS: [string, string][] = [
  [',', '.'],
  ['', '.'],
  ['.', ','],
  ['', ','],
  ["'", '.'],
];

/** A number without sign, grouping, currency or spaces. */
const PLAIN = /^\d+(?:\.\d+)?$/;

/** "1.234,50" (sepStyle 2, currency, parentheses or a minus) -> "1234,50"; undefined when not a number. */
function typedNumber(text: string, format: Extract<FieldFormat, { kind: 'number' | 'percent' }>): string | undefined {
  const [group, mark] = SEPARATORS[Math.min(4, Math.max(0, Math.floor(format.sepStyle)))] ?? SEPARATORS[0];
  // digits with a "." decimal mark are typed as they are (what the steps below give them, at a regex's cost)
  if (mark === '.' && format.kind === 'number' && !format.currency && PLAIN.test(text)) return text;
  let t = text.trim();
  if (format.kind === 'number' && format.currency) t = t.split(format.currency).join('');
  let negative = false;
  if (/^\(.*\)$/.test(t.trim())) {
    negative = true;
    t = t.trim().slice(1, -1);
  }
  t = t.replace(/[\s\u00a0%]/g, '');
  if (t.startsWith('-')) {
    negative = !negative;
    t = t.slice(1);
  }
  if (group) t = t.split(group).join('');
  const [int, frac, extra] = t.split(mark);
  if (extra !== undefined || !/^\d*$/.test(int) || (frac !== undefined && !/^\d*$/.test(frac)) || !(int || frac)) {
    return undefined;
  }
  let digits = frac === undefined ? int || '0' : `${int || '0'}.${frac}`;
  if (format.kind === 'percent') digits = String(Number(digits) / 100);
  const typed = mark === ',' ? digits.replace('.', ',') : digits;
  return negative && /[1-9]/.test(typed) ? `-${typed}` : typed;
}

/** The value scripts see for a caller's value; undefined for values scripts cannot see (images). */
export function scriptValue(
  value: FillValue,
  field: ScriptField,
  format: FieldFormat | undefined,
): string | string[] | undefined {
  switch (value.kind) {
    case 'text':
      if (format?.kind === 'number' || format?.kind === 'percent') return typedNumber(value.text, format) ?? value.text;
      return value.text;
    case 'check':
      return value.checked ? (field.exportValues?.[0] ?? 'Yes') : 'Off';
    case 'choice':
      return value.value;
    case 'choices':
      return value.values;
    case 'clear':
      return field.kind === 'checkbox' || field.kind === 'radiobutton' ? 'Off' : '';
    default:
      return undefined;
  }
}
