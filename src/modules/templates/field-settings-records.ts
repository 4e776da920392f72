import type { Db } from '../../adapters/db/database.js';
import type { FieldSettings } from './field-settings.js';

// Statements on `templates` that only field settings make (kept apart while template-records.ts is
// being written; they belong there). Account-scoped; `db` may be a transaction.

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
