import type { Db } from '../../adapters/db/database.js';
import type { SigningCertificatesTable } from '../../adapters/db/schema.js';

// The one owner of the `signing_certificates` table. Every statement is scoped to an account.

export type CertificateRow = SigningCertificatesTable;

export async function insertCertificate(db: Db, row: CertificateRow): Promise<void> {
  await db.insertInto('signing_certificates').values(row).execute();
}

/** Newest first; at most 100 (an account keeps a few). */
export async function listCertificateRows(db: Db, accountId: string): Promise<CertificateRow[]> {
  return db
    .selectFrom('signing_certificates')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(100)
    .execute();
}

export async function countCertificates(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('signing_certificates')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function findCertificate(db: Db, accountId: string, id: string): Promise<CertificateRow | undefined> {
  return db
    .selectFrom('signing_certificates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function findDefaultCertificate(db: Db, accountId: string): Promise<CertificateRow | undefined> {
  return db
    .selectFrom('signing_certificates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('is_default', '=', 1)
    .executeTakeFirst();
}

/** Makes `id` the account's default (the others stop being it). */
export async function setDefaultCertificate(db: Db, accountId: string, id: string): Promise<void> {
  await db.updateTable('signing_certificates').set({ is_default: 0 }).where('account_id', '=', accountId).execute();
  await db
    .updateTable('signing_certificates')
    .set({ is_default: 1 })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** True when a row was deleted. */
export async function deleteCertificateRow(db: Db, accountId: string, id: string): Promise<boolean> {
  const res = await db
    .deleteFrom('signing_certificates')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
