import type { Db } from '../../adapters/db/database.js';
import { pageOf, type PageMeta, type PageRequest } from '../../adapters/db/paged-list.js';
import type { TemplateVersionsTable } from '../../adapters/db/schema.js';

// The one owner of the `template_versions` table: every statement on it lives here, account-scoped.
// `db` may be a transaction wherever a caller needs the statement inside one.

/** A field of a version as the history keeps it: its render key and its PDF name. */
export interface VersionField {
  name: string;
  originalName: string;
}

/** earlier: the version a template had at its first recorded change (its history starts there) */
export type VersionChange = 'earlier' | 'fields' | 'file';

export interface TemplateVersion {
  version: number;
  change: VersionChange;
  fields: VersionField[];
  report: unknown;
  createdAt: string;
}

/**
 * Records one version; a version already recorded is left as it is (the version before a template's
 * first recorded change is written lazily, and two writers may both try).
 */
export async function recordTemplateVersion(
  db: Db,
  v: {
    accountId: string;
    templateId: string;
    version: number;
    change: VersionChange;
    fields: VersionField[];
    report?: unknown;
    at: Date;
  },
): Promise<void> {
  const row: TemplateVersionsTable = {
    template_id: v.templateId,
    account_id: v.accountId,
    version: v.version,
    change: v.change,
    fields: JSON.stringify(v.fields),
    report: v.report === undefined ? null : JSON.stringify(v.report),
    created_at: v.at.toISOString(),
  };
  await db
    .insertInto('template_versions')
    .values(row)
    .onConflict((oc) => oc.columns(['template_id', 'version']).doNothing())
    .execute();
}

/** Versions a render warning looks back through for an unknown key: the history only grows. */
const LOOK_BACK_VERSIONS = 20;

/**
 * For each of `keys` that was a render key or PDF name of one of the latest LOOK_BACK_VERSIONS recorded
 * versions, the latest such version. Read only when render data holds keys the current version lacks;
 * a key older than that is reported as unknown, without its version.
 */
export async function formerKeyVersions(
  db: Db,
  accountId: string,
  templateId: string,
  keys: readonly string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (keys.length === 0) return out;
  const rows = await db
    .selectFrom('template_versions')
    .select(['version', 'fields'])
    .where('template_id', '=', templateId)
    .where('account_id', '=', accountId)
    .orderBy('version', 'desc')
    .limit(LOOK_BACK_VERSIONS)
    .execute();
  const wanted = new Set(keys);
  for (const row of rows) {
    for (const f of JSON.parse(row.fields) as VersionField[]) {
      for (const k of [f.name, f.originalName]) {
        if (wanted.has(k) && !out.has(k)) out.set(k, row.version);
      }
    }
    if (out.size === wanted.size) break;
  }
  return out;
}

/** The mapping report of the template's latest file replacement, null when its file was never replaced. */
export async function lastFileMapping(db: Db, accountId: string, templateId: string): Promise<unknown> {
  const row = await db
    .selectFrom('template_versions')
    .select('report')
    .where('template_id', '=', templateId)
    .where('account_id', '=', accountId)
    .where('change', '=', 'file')
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.report ? (JSON.parse(row.report) as unknown) : null;
}

function toVersion(r: TemplateVersionsTable): TemplateVersion {
  return {
    version: r.version,
    change: r.change as VersionChange,
    fields: JSON.parse(r.fields) as VersionField[],
    report: r.report === null ? null : (JSON.parse(r.report) as unknown),
    createdAt: r.created_at,
  };
}

/** A template's versions, oldest first (the dashboard's history; tests). */
export async function listTemplateVersions(db: Db, accountId: string, templateId: string): Promise<TemplateVersion[]> {
  const rows = await db
    .selectFrom('template_versions')
    .selectAll()
    .where('template_id', '=', templateId)
    .where('account_id', '=', accountId)
    .orderBy('version', 'asc')
    .execute();
  return rows.map(toVersion);
}

/**
 * One page of a template's versions, newest first, with the count of all of them. Versions are the
 * list's order (not created_at: the `earlier` entry carries the template's older timestamp), so the
 * cursor is a version number: `startingAfter` lists the versions below it.
 */
export async function listTemplateVersionPage(
  db: Db,
  accountId: string,
  templateId: string,
  page: PageRequest,
  startingAfter?: number,
): Promise<{ rows: TemplateVersion[]; meta: PageMeta }> {
  const filtered = db
    .selectFrom('template_versions')
    .where('template_id', '=', templateId)
    .where('account_id', '=', accountId);
  const [rows, total] = await Promise.all([
    filtered
      .selectAll()
      .$if(startingAfter !== undefined, (q) => q.where('version', '<', startingAfter!))
      .orderBy('version', 'desc')
      .limit(page.limit + 1)
      .offset((page.page - 1) * page.limit)
      .execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  const { rows: kept, meta } = pageOf(rows, page, Number(total.n), (row) => String(row.version));
  return { rows: kept.map(toVersion), meta };
}

/** With the template (in its deleting transaction). */
export async function deleteTemplateVersions(db: Db, accountId: string, templateId: string): Promise<void> {
  await db
    .deleteFrom('template_versions')
    .where('template_id', '=', templateId)
    .where('account_id', '=', accountId)
    .execute();
}
