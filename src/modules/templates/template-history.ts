import type { Db } from '../../adapters/db/database.js';
import type { TemplateField } from '../render-data/template-field.js';
import { recordTemplateVersion, type VersionField } from './template-version-records.js';
import type { TemplateRow } from './template-records.js';

// What a template's history records of each change (template_versions): the keys of every version, so
// that a render can name the version a key it no longer has belonged to.

function versionFields(fields: TemplateField[]): VersionField[] {
  return fields.map((f) => ({ name: f.name, originalName: f.pdfMeta.originalName }));
}

type Row = Pick<TemplateRow, 'id' | 'account_id' | 'version' | 'updated_at'>;

/** The version a template is at, if its history does not hold it yet (its history starts at its first change). */
function recordCurrentVersion(trx: Db, row: Row, fields: TemplateField[]): Promise<void> {
  return recordTemplateVersion(trx, {
    accountId: row.account_id,
    templateId: row.id,
    version: row.version,
    change: 'earlier',
    fields: versionFields(fields),
    at: new Date(row.updated_at),
  });
}

/**
 * A change that makes a new version (`row` is the template before it), in the change's transaction: the
 * team's field settings (`fields`, reporting the keys changed) or the file (`file`: a replacement or an
 * edit of the fields on the page, reporting how the new fields map to the old).
 */
export async function recordNewVersion(
  trx: Db,
  row: Row,
  v: { change: 'fields' | 'file'; before: TemplateField[]; after: TemplateField[]; report: unknown; at: Date },
): Promise<void> {
  await recordCurrentVersion(trx, row, v.before);
  await recordTemplateVersion(trx, {
    accountId: row.account_id,
    templateId: row.id,
    version: row.version + 1,
    change: v.change,
    fields: versionFields(v.after),
    report: v.report,
    at: v.at,
  });
}
