import { validationError } from '../../errors.js';

// Bounds from contract.md: name 1-200 characters, description 0-2,000 (counted in code points).

export function checkName(value: string, field = 'name'): string {
  const name = value.trim();
  const len = [...name].length;
  if (len < 1 || len > 200) throw validationError({ field, expected: 'string of 1-200 characters', received: `string of ${len} characters` });
  return name;
}

export function checkDescription(value: string, field = 'description'): string {
  const len = [...value].length;
  if (len > 2000) throw validationError({ field, expected: 'string of at most 2000 characters', received: `string of ${len} characters` });
  return value;
}
