import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { loadCompleteAnalysis } from './complete-analysis.js';
import { effectiveFields, parseFieldSettings, type FieldSettings } from './field-settings.js';
import { saveFieldSettings } from './template-records.js';
import { applyFieldsPatch, type FieldsPatch } from './fields-patch.js';
import { frozen, getTemplateSchema, publishUpdated } from './manage-templates.js';
import { recordNewVersion } from './template-history.js';
import { loadTemplate } from './template-view.js';

/**
 * PATCH /templates/:id/fields: the team's keys, descriptions, defaults, constants and rules. The whole
 * request is checked first (one VALIDATION_ERROR listing every problem in `details.errors`, nothing
 * saved); a change raises `version`, is recorded in the history and publishes template.updated, all in
 * one transaction. A request that changes nothing keeps the version. Answers the updated schema.
 */
export async function updateTemplateFields(
  deps: Pick<Deps, 'db' | 'blobs' | 'engine' | 'caches' | 'clock' | 'config' | 'tracer'>,
  accountId: string,
  id: string,
  patch: FieldsPatch,
) {
  // 1. the request names something to do
  if (patch.fields === undefined && patch.useSuggestedNames !== true) {
    throw new AppError('VALIDATION_ERROR', 'Send "fields", or "useSuggestedNames": true', {
      field: 'body',
      expected: 'fields or useSuggestedNames',
      received: 'neither',
    });
  }

  // 2. load scoped; a frozen template refuses changes
  const row = await loadTemplate(deps, accountId, id);
  if (row.is_frozen) throw frozen(id);
  const analysis = await loadCompleteAnalysis(deps, row);
  const current = parseFieldSettings(row.field_settings);

  // 3. the new settings, or every problem with the request
  const outcome = applyFieldsPatch(analysis.fields, current, patch, deps.config.limits.maxFieldChanges);
  if (!outcome.ok) throw invalidFields(outcome.problems);
  if (outcome.changed.length === 0) return getTemplateSchema(deps, accountId, id);

  // 4. save as a new version, with its history and event
  const at = deps.clock.now();
  const saved = await deps.db.transaction().execute(async (trx) => {
    const settings: FieldSettings = outcome.settings;
    const ok = await saveFieldSettings(trx, { accountId, id, fromVersion: row.version, settings, at });
    if (!ok) return false;
    await recordNewVersion(trx, row, {
      change: 'fields',
      before: effectiveFields(analysis.fields, current),
      after: effectiveFields(analysis.fields, settings),
      report: { changed: outcome.changed },
      at,
    });
    await publishUpdated(trx, accountId, id, at, deps.tracer.traceparent());
    return true;
  });
  if (!saved) {
    const now = await loadTemplate(deps, accountId, id);
    if (now.is_frozen) throw frozen(id);
    throw new AppError('CONFLICT', `Template "${id}" was changed by another request at the same time; retry`);
  }

  // 5. the schema as it now is
  return getTemplateSchema(deps, accountId, id);
}

function invalidFields(problems: { field: string; expected: string; received: string; message: string }[]) {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problems: see details.errors)` : '';
  return new AppError('VALIDATION_ERROR', `${first.message}${more}`, {
    field: first.field,
    expected: first.expected,
    received: first.received,
    errors: problems,
  });
}
