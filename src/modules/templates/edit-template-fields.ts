import type { Deps } from '../../deps.js';
import { FieldEditError, type FieldEdit } from '../../pdf/types.js';
import { loadCompleteAnalysis } from './complete-analysis.js';
import { namedAsSent, toPdfNames } from './edit-names.js';
import { effectiveFields, parseFieldSettings } from './field-settings.js';
import { frozen, getTemplateSchema, storeTemplateFile } from './manage-templates.js';
import { loadTemplateBytes } from './template-files.js';
import { loadTemplate } from './template-view.js';

/**
 * POST /templates/:id/field-edits: add, change and delete the PDF's own form fields. The edit runs in the
 * engine (a worker, with the pool engine) and the result is stored as a file replacement would be: a
 * new version whose fields keep their keys and settings (matched by PDF name), with the mapping report.
 * Every problem of the request comes back at once as a FieldEditError, and nothing is saved.
 */
export async function editTemplateFields(deps: Deps, accountId: string, id: string, edits: readonly FieldEdit[]) {
  // 1. load scoped; a frozen template refuses edits as it refuses a new file
  const row = await loadTemplate(deps, accountId, id);
  if (row.is_frozen) throw frozen(id);

  // 2. render keys to PDF names
  const analysis = await loadCompleteAnalysis(deps, row);
  const fields = effectiveFields(analysis.fields, parseFieldSettings(row.field_settings));
  const named = toPdfNames(fields, edits);

  // 3. the edit, in the engine; its problems and ours are reported together
  const bytes = await loadTemplateBytes(deps, row);
  const edited = await deps.engine.editFields(bytes, named.edits, { tenant: accountId }).catch((err: unknown) => {
    if (!(err instanceof FieldEditError)) throw err;
    throw new FieldEditError([...named.problems, ...namedAsSent(err.problems, named.sentAs)]);
  });
  if (named.problems.length > 0) throw new FieldEditError(named.problems);

  // 4. stored as the next version, as PUT /file stores a new file
  await storeTemplateFile(deps, accountId, row, { bytes: edited, fileName: row.file_name });

  // 5. the schema of the new version, with its field mapping
  return getTemplateSchema(deps, accountId, id);
}
