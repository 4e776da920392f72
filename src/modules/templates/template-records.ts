import type { Db } from '../../adapters/db/database.js';
import { listPage, type PageCursor, type PageRequest } from '../../adapters/db/paged-list.js';
import { preparedQuery } from '../../adapters/db/prepared-query.js';
import type { TemplatesTable } from '../../adapters/db/schema.js';
import type { FieldSettings } from './field-settings.js';

// The one owner of the `templates` table: every statement on it lives here, scoped by account (another
// tenant's id finds nothing). The only statement across accounts is the orphan sweep's, which says so.
// `db` may be a transaction wherever a caller needs the statement inside one.

export type TemplateRow = TemplatesTable;

/** What a render needs of its template row (its analysis comes parsed, beside it). */
export type RenderTemplate = Pick<
  TemplateRow,
  'id' | 'name' | 'version' | 'blob_key' | 'default_locale' | 'default_timezone'
>;

/** A template's file as PUT /templates/:id/file replaces it. */
export type TemplateFileColumns = Pick<
  TemplateRow,
  'file_name' | 'file_size' | 'field_count' | 'page_count' | 'analysis' | 'field_settings' | 'blob_key' | 'updated_at'
>;

export async function insertTemplate(db: Db, row: TemplateRow): Promise<void> {
  await db.insertInto('templates').values(row).execute();
}

export async function findTemplate(db: Db, accountId: string, id: string): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

// every render runs it: a prepared query (see adapters/db/prepared-query.ts)
const renderTemplateRow = preparedQuery((db, v: { id: string; accountId: string }) =>
  db
    .selectFrom('templates')
    .select(['id', 'name', 'version', 'blob_key', 'field_settings', 'default_locale', 'default_timezone'])
    .where('id', '=', v.id)
    .where('account_id', '=', v.accountId),
);

/** The columns of a template a render needs, without its (large) stored analysis. */
export async function findRenderTemplate(
  db: Db,
  accountId: string,
  id: string,
): Promise<(RenderTemplate & Pick<TemplateRow, 'field_settings'>) | undefined> {
  return (await renderTemplateRow(db, { id, accountId })).rows[0];
}

/** 1 when the template is frozen, 0 when not, undefined when this account has no such template. */
export async function templateFrozenFlag(db: Db, accountId: string, id: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('templates')
    .select('is_frozen')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.is_frozen;
}

/** Where a list continues after the template `id` of this account; undefined when it has none such. */
export async function templateCursor(db: Db, accountId: string, id: string): Promise<PageCursor | undefined> {
  return db
    .selectFrom('templates')
    .select(['created_at', 'id'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A page of the account's templates, newest first, without their analysis and file key. */
export async function listTemplateRows(db: Db, accountId: string, page: PageRequest, startingAfter?: PageCursor) {
  return listPage(
    db.selectFrom('templates').where('account_id', '=', accountId),
    (q) =>
      q.select([
        'id',
        'name',
        'description',
        'file_name',
        'file_size',
        'field_count',
        'page_count',
        'is_frozen',
        'version',
        'default_locale',
        'default_timezone',
        'created_at',
        'updated_at',
      ]),
    page,
    startingAfter,
  );
}

export async function countTemplates(db: Db, accountId: string): Promise<number> {
  const { n } = await db
    .selectFrom('templates')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** Sets `changes`, only while unfrozen when `unfrozenOnly`; true when the template was updated. */
export async function updateTemplateRow(
  db: Db,
  accountId: string,
  id: string,
  changes: Partial<
    Pick<TemplateRow, 'name' | 'description' | 'is_frozen' | 'updated_at' | 'default_locale' | 'default_timezone'>
  >,
  unfrozenOnly: boolean,
): Promise<boolean> {
  let q = db.updateTable('templates').set(changes).where('id', '=', id).where('account_id', '=', accountId);
  if (unfrozenOnly) q = q.where('is_frozen', '=', 0);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * Points an unfrozen template at its new file (version + 1), only while it still points at
 * `currentBlobKey`: of two concurrent replacements one wins. True when it was updated.
 */
export async function replaceTemplateFileRow(
  db: Db,
  accountId: string,
  id: string,
  file: TemplateFileColumns,
  current: Pick<TemplateRow, 'blob_key' | 'version'>,
): Promise<boolean> {
  const res = await db
    .updateTable('templates')
    .set((eb) => ({
      file_name: file.file_name,
      file_size: file.file_size,
      field_count: file.field_count,
      page_count: file.page_count,
      analysis: file.analysis,
      field_settings: file.field_settings,
      blob_key: file.blob_key,
      version: eb('version', '+', 1),
      updated_at: file.updated_at,
    }))
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('is_frozen', '=', 0)
    .where('blob_key', '=', current.blob_key) // a concurrent replace wins once; the loser retries cleanly
    .where('version', '=', current.version) // the settings carried are those of this version
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Stores a completed analysis, only while the row still points at the file it was made from. */
export async function saveTemplateAnalysis(
  db: Db,
  row: Pick<TemplateRow, 'id' | 'account_id' | 'blob_key'>,
  analysis: string,
): Promise<void> {
  await db
    .updateTable('templates')
    .set({ analysis })
    .where('id', '=', row.id)
    .where('account_id', '=', row.account_id)
    .where('blob_key', '=', row.blob_key)
    .execute();
}

/** Deletes the template if it is not frozen; true when it was deleted. */
export async function deleteUnfrozenTemplate(db: Db, accountId: string, id: string): Promise<boolean> {
  const res = await db
    .deleteFrom('templates')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('is_frozen', '=', 0)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Which of these blob keys a template of any account points at (orphan sweep). */
export async function referencedTemplateBlobs(db: Db, keys: string[]): Promise<Set<string>> {
  const live = await db.selectFrom('templates').select('blob_key').where('blob_key', 'in', keys).execute();
  return new Set(live.map((r) => r.blob_key));
}

/**
 * Saves a template's field settings as a new version: only while the template is unfrozen and still at
 * `fromVersion` (the version the settings were computed from). False when either no longer holds.
 */
export async function saveFieldSettings(
  db: Db,
  t: { accountId: string; id: string; fromVersion: number; settings: FieldSettings; at: Date },
): Promise<boolean> {
  const res = await db
    .updateTable('templates')
    .set({
      field_settings: JSON.stringify(t.settings),
      version: t.fromVersion + 1,
      updated_at: t.at.toISOString(),
    })
    .where('id', '=', t.id)
    .where('account_id', '=', t.accountId)
    .where('is_frozen', '=', 0)
    .where('version', '=', t.fromVersion)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
