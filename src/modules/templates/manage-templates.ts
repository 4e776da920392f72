import { checkLocaleSetting, checkTimeZoneSetting } from '../render-data/locale-setting.js';
import type { Deps } from '../../deps.js';
import { AppError, notFound, validationError } from '../../errors.js';
import type { PlanName } from '../../plans.js';
import { templateBlobKey } from './create-template.js';
import { checkDescription, checkName } from './template-input.js';
import { loadCompleteAnalysis } from './complete-analysis.js';
import { renderDataJsonSchema } from './json-schema.js';
import {
  keysByPdfName,
  loadTemplate,
  publicField,
  publicScripts,
  toTemplateView,
  type TemplateView,
} from './template-view.js';
import {
  deleteUnfrozenTemplate,
  listTemplateRows,
  replaceTemplateFileRow,
  templateCursor,
  templateFrozenFlag,
  updateTemplateRow,
  type TemplateRow,
} from './template-records.js';
import type { PageCursor } from '../../adapters/db/paged-list.js';
import type { TemplateAnalysis } from '../../pdf/types.js';
import { publishEvent } from '../events/publish-event.js';
import { effectiveFields, parseFieldSettings } from './field-settings.js';
import type { TemplateField } from '../render-data/template-field.js';
import { deleteTemplateVersions, lastFileMapping } from './template-version-records.js';
import { carrySettings, type FieldMappingReport } from './carry-settings.js';
import { recordNewVersion } from './template-history.js';
import type { Db } from '../../adapters/db/database.js';

/** template.updated with the template as it now is, in the transaction of the change. */
export async function publishUpdated(
  trx: Db,
  accountId: string,
  id: string,
  at: Date,
  /** the request's trace (Tracer.traceparent()), for the deliveries' spans */
  traceparent?: string,
): Promise<TemplateView> {
  const view = toTemplateView(await loadTemplate({ db: trx }, accountId, id));
  await publishEvent(trx, { accountId, type: 'template.updated', data: view, traceparent }, at);
  return view;
}

// Template read and management use cases. Each is scoped by account: another tenant's id is a 404.

/**
 * Newest first (created_at desc, id desc: a total order). With `startingAfter` (a template id of this
 * account), the list starts just after that template, so pages do not shift when templates are added.
 */
export async function listTemplates(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  page: number,
  limit: number,
  startingAfter?: string,
) {
  let after: PageCursor | undefined;
  if (startingAfter !== undefined) {
    after = await templateCursor(deps.db, accountId, startingAfter);
    if (!after)
      throw validationError({
        field: 'starting_after',
        expected: 'the id of one of your templates',
        received: JSON.stringify(startingAfter),
      });
  }
  const { rows, meta } = await listTemplateRows(deps.db, accountId, { page, limit }, after);
  return { data: rows.map((r) => toTemplateView(r, false)), meta };
}

export async function getTemplate(deps: Pick<Deps, 'db'>, accountId: string, id: string): Promise<TemplateView> {
  return toTemplateView(await loadTemplate(deps, accountId, id));
}

type SchemaDeps = Pick<Deps, 'db' | 'blobs' | 'engine' | 'caches'>;

/** The current version of a template (scoped) with its complete analysis, in the shape both schema answers share. */
async function describeTemplate<T>(
  deps: SchemaDeps,
  accountId: string,
  id: string,
  schemaOf: (row: TemplateRow, analysis: TemplateAnalysis, fields: TemplateField[]) => T | Promise<T>,
) {
  const row = await loadTemplate(deps, accountId, id);
  const analysis = await loadCompleteAnalysis(deps, row);
  const fields = effectiveFields(analysis.fields, parseFieldSettings(row.field_settings));
  return {
    templateId: row.id,
    templateName: row.name,
    version: row.version,
    schema: await schemaOf(row, analysis, fields),
  };
}

/** GET /templates/:id/schema: the fields to send in render data. */
export function getTemplateSchema(deps: SchemaDeps, accountId: string, id: string) {
  return describeTemplate(deps, accountId, id, async (_, analysis, fields) => {
    const keys = keysByPdfName(fields);
    return {
      fields: fields.map((f) => publicField(f, keys)),
      pageCount: analysis.pageCount,
      removedFromOutput: analysis.removedFromOutput ?? [],
      scripts: publicScripts(analysis.scripts, keys),
      // how the current version's fields map to the previous file's, when a file replacement made it
      fieldMapping: (await lastFileMapping(deps.db, accountId, id)) as FieldMappingReport | null,
    };
  });
}

/** GET /templates/:id/json-schema: the render data of the current version as a JSON Schema. */
export function getTemplateJsonSchema(deps: SchemaDeps, accountId: string, id: string) {
  return describeTemplate(deps, accountId, id, (row, _, fields) =>
    renderDataJsonSchema({ id: row.id, name: row.name, version: row.version }, { fields }),
  );
}

export interface TemplatePatch {
  name?: string;
  description?: string;
  isFrozen?: boolean;
  /** null: back to the server's default */
  locale?: string | null;
  timezone?: string | null;
}

/**
 * PATCH: at least one of name, description, isFrozen. A frozen template refuses name/description changes
 * even when the same request unfreezes it: unfreeze first, then edit (two explicit steps).
 */
export async function updateTemplate(
  deps: Pick<Deps, 'db' | 'clock' | 'tracer'>,
  accountId: string,
  id: string,
  patch: TemplatePatch,
): Promise<TemplateView> {
  if (Object.values(patch).every((v) => v === undefined)) {
    throw validationError({
      field: 'body',
      expected: 'at least one of name, description, isFrozen, locale, timezone',
      received: 'none',
    });
  }
  const changes: Parameters<typeof updateTemplateRow>[3] = {};
  if (patch.name !== undefined) changes.name = checkName(patch.name);
  if (patch.description !== undefined) changes.description = checkDescription(patch.description);
  if (patch.locale !== undefined) changes.default_locale = checkLocaleSetting(patch.locale);
  if (patch.timezone !== undefined) changes.default_timezone = checkTimeZoneSetting(patch.timezone);
  // a frozen template is read-only: its render defaults too
  const editsContent = [patch.name, patch.description, patch.locale, patch.timezone].some((v) => v !== undefined);
  if (patch.isFrozen !== undefined) changes.is_frozen = patch.isFrozen ? 1 : 0;
  const at = deps.clock.now();
  changes.updated_at = at.toISOString();

  const view = await deps.db.transaction().execute(async (trx) => {
    if (!(await updateTemplateRow(trx, accountId, id, changes, editsContent))) return undefined;
    return publishUpdated(trx, accountId, id, at, deps.tracer.traceparent());
  });
  if (view) return view;
  await loadTemplate(deps, accountId, id); // 404 when it is not ours
  throw frozen(id);
}

/**
 * PUT /templates/:id/file: new PDF, schema re-extracted, version + 1. The fields of the new file that are
 * the old ones (carry-settings.ts) keep their keys, defaults and rules; the answer reports the mapping,
 * and the history keeps both versions' keys.
 */
export async function replaceTemplateFile(
  deps: Deps,
  account: { id: string; plan: PlanName },
  id: string,
  input: { bytes: Uint8Array; fileName: string },
): Promise<TemplateView & { fieldMapping: FieldMappingReport }> {
  const current = await loadTemplate(deps, account.id, id);
  if (current.is_frozen) throw frozen(id);
  return storeTemplateFile(deps, account.id, current, input);
}

/**
 * A new file for `current` (a row read by the caller, who checked it is not frozen), stored as version
 * + 1: analysed, settings carried by PDF name, history and template.updated in one transaction. Shared by
 * a file replacement and the field editor. A change made meanwhile by another request answers CONFLICT.
 */
export async function storeTemplateFile(
  deps: Deps,
  accountId: string,
  current: TemplateRow,
  input: { bytes: Uint8Array; fileName: string },
): Promise<TemplateView & { fieldMapping: FieldMappingReport }> {
  const id = current.id;
  const analysis = await deps.engine.analyse(input.bytes, { tenant: accountId });
  const before = await loadCompleteAnalysis(deps, current);
  const oldSettings = parseFieldSettings(current.field_settings);
  const carried = carrySettings(before.fields, oldSettings, analysis.fields);
  const blobKey = templateBlobKey(accountId, id);
  await deps.blobs.put(blobKey, input.bytes);
  const at = deps.clock.now();
  const view = await deps.db.transaction().execute(async (trx) => {
    const file = {
      file_name: input.fileName,
      file_size: input.bytes.byteLength,
      field_count: analysis.fields.length,
      page_count: analysis.pageCount,
      analysis: JSON.stringify(analysis),
      field_settings: JSON.stringify(carried.settings),
      blob_key: blobKey,
      updated_at: at.toISOString(),
    };
    // a concurrent replace (or settings change) wins once; the loser retries cleanly
    if (!(await replaceTemplateFileRow(trx, accountId, id, file, current))) return undefined;
    await recordNewVersion(trx, current, {
      change: 'file',
      before: effectiveFields(before.fields, oldSettings),
      after: effectiveFields(analysis.fields, carried.settings),
      report: carried.report,
      at,
    });
    return publishUpdated(trx, accountId, id, at, deps.tracer.traceparent()); // the new version is in the event's data
  });
  if (!view) {
    await deps.blobs.delete(blobKey).catch(() => undefined);
    const now = await loadTemplate(deps, accountId, id);
    if (now.is_frozen) throw frozen(id);
    throw new AppError('CONFLICT', `Template "${id}" was changed by another request at the same time; retry`);
  }
  // The old file is left to the orphan sweeper: a render that read the old row may still be loading it.
  return { ...view, fieldMapping: carried.report };
}

/** DELETE: record first, then the file. Renders already made keep their own files until they expire. */
export async function deleteTemplate(
  deps: Pick<Deps, 'db' | 'blobs' | 'clock' | 'tracer'>,
  accountId: string,
  id: string,
): Promise<void> {
  const row = await loadTemplate(deps, accountId, id);
  if (row.is_frozen) throw frozen(id);
  const deleted = await deps.db.transaction().execute(async (trx) => {
    // the template as it was when deleted: read in the transaction, then removed only if still unfrozen
    const last = await loadTemplate({ db: trx }, accountId, id).catch(() => undefined);
    if (!(await deleteUnfrozenTemplate(trx, accountId, id)) || !last) return false;
    await deleteTemplateVersions(trx, accountId, id);
    const at = deps.clock.now();
    const event = { accountId, type: 'template.deleted' as const, data: toTemplateView(last) };
    await publishEvent(trx, { ...event, traceparent: deps.tracer.traceparent() }, at);
    return true;
  });
  if (!deleted) {
    if ((await templateFrozenFlag(deps.db, accountId, id)) === undefined) throw notFound.template(id);
    throw frozen(id);
  }
  await deps.blobs.delete(row.blob_key).catch(() => undefined);
}

export function frozen(id: string) {
  return new AppError('TEMPLATE_FROZEN', `Template "${id}" is frozen; PATCH {"isFrozen": false} first`);
}
