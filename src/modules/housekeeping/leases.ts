import type { Deps } from '../../deps.js';

// Named leases (the `leases` table, owned here): one holder at a time across instances, taken by a
// conditional update and given back, or left to expire if its holder dies.

export async function acquireLease(
  deps: Pick<Deps, 'db' | 'clock'>,
  name: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const now = deps.clock.now();
  const expires = new Date(now.getTime() + ttlMs).toISOString();
  // Take a free or expired lease; the conditional update is atomic in both databases.
  await deps.db
    .insertInto('leases')
    .values({ name, holder: '', expires_at: '' })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const res = await deps.db
    .updateTable('leases')
    .set({ holder, expires_at: expires })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('expires_at', '<', now.toISOString()), eb('holder', '=', holder)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Gives the lease up if `holder` has it, so the next sweep (here or elsewhere) need not wait for it to expire. */
export async function releaseLease(deps: Pick<Deps, 'db'>, name: string, holder: string): Promise<void> {
  await deps.db
    .updateTable('leases')
    .set({ holder: '', expires_at: '' })
    .where('name', '=', name)
    .where('holder', '=', holder)
    .execute();
}
