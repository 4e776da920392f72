import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { holderIsLive } from '../../adapters/db/instances.js';
import type { Deps } from '../../deps.js';

// Named leases (the `leases` table, owned here): one holder at a time across instances, taken by a
// conditional update and given back. A holder is `<instance id>/<uuid>`: the lease is free once it
// expires or once that instance is no longer live (killed, or an older release that wrote other holders),
// so a crash never blocks the next sweep for the lease's whole length.

/** A new holder name for work of this instance (one per loop, so two loops of one process exclude each other). */
export function leaseHolder(deps: Pick<Deps, 'instanceId'>): string {
  return `${deps.instanceId}/${randomUUID()}`;
}

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
    .where((eb) =>
      eb.or([
        eb('expires_at', '<', now.toISOString()),
        eb('holder', '=', holder),
        eb.not(holderIsLive(eb, sql.ref<string>('leases.holder'), now.toISOString())),
      ]),
    )
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
