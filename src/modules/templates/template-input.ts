import { nulCharacterError, validationError } from '../../errors.js';

// Bounds from contract.md: name 1-200 characters, description 0-2,000 (counted in code points).

/** Multipart text never passes the JSON NUL guard (http/nul-guard.ts): the same rule here. */
export function checkNoNul(value: string, field: string): string {
  if (value.includes('\u0000')) throw nulCharacterError(field);
  return value;
}

export function checkName(value: string, field = 'name'): string {
  const name = checkNoNul(value, field).trim();
  const len = [...name].length;
  if (len < 1 || len > 200)
    throw validationError({ field, expected: 'string of 1-200 characters', received: `string of ${len} characters` });
  return name;
}

export function checkDescription(value: string, field = 'description'): string {
  checkNoNul(value, field);
  const len = [...value].length;
  if (len > 2000)
    throw validationError({
      field,
      expected: 'string of at most 2000 characters',
      received: `string of ${len} characters`,
    });
  return value;
}
