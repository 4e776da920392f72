import type { Db } from '../../adapters/db/database.js';
import { DataValidationError } from '../../errors.js';
import type { TemplateField } from '../render-data/template-field.js';
import { validateData, type ValidatedData, type ValidateOptions } from '../render-data/validate-data.js';
import { formerKeyVersions } from './template-version-records.js';

/** Unknown keys looked up in the history at most (the rest are reported without their version). */
const MAX_LOOKED_UP = 1000;

/**
 * validateData against a template's current fields, where a key the current version lacks is reported
 * with the last version it belonged to. The history is read only when the data holds such keys (then
 * the data is validated a second time, with the answer).
 */
export async function validateForTemplate(
  db: Db,
  template: { accountId: string; templateId: string },
  fields: TemplateField[],
  data: unknown,
  options: Omit<ValidateOptions, 'formerKeys'>,
): Promise<ValidatedData> {
  let first: ValidatedData | undefined;
  let unknown: string[];
  try {
    first = validateData(fields, data, options);
    if (first.unknownKeys.length === 0) return first;
    unknown = first.unknownKeys;
  } catch (err) {
    if (!(err instanceof DataValidationError) || err.details.received !== 'unknown field') throw err;
    unknown = unknownKeysOf(fields, data);
  }
  const formerKeys = await formerKeyVersions(
    db,
    template.accountId,
    template.templateId,
    unknown.slice(0, MAX_LOOKED_UP),
  );
  if (formerKeys.size === 0 && first) return first;
  return validateData(fields, data, { ...options, formerKeys });
}

function unknownKeysOf(fields: TemplateField[], data: unknown): string[] {
  const known = new Set(fields.flatMap((f) => [f.name, f.pdfMeta.originalName]));
  return Object.keys(data as object).filter((k) => !known.has(k));
}
