// A named lease is free once its holder is no longer a live instance: an older release's lease (a bare
// UUID holder) or a killed instance's does not block the start-up sweep for the lease's whole length,
// while a live instance's lease still excludes everyone else.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sweepOnce } from '../../src/modules/housekeeping/sweeper.js';
import { DATABASES, startServer, type TestServer } from '../helpers/server.js';

const LEASE = 'retention-sweeper';

async function holdLease(s: TestServer, holder: string) {
  const expires = new Date(Date.now() + 5 * 60_000).toISOString();
  await s.runtime.db.deleteFrom('leases').where('name', '=', LEASE).execute();
  await s.runtime.db.insertInto('leases').values({ name: LEASE, holder, expires_at: expires }).execute();
}

async function instance(s: TestServer, aliveForMs: number): Promise<string> {
  const id = randomUUID();
  const expires = new Date(Date.now() + aliveForMs).toISOString();
  await s.runtime.db.insertInto('instances').values({ id, expires_at: expires }).execute();
  return id;
}

describe.each(DATABASES.filter((d) => d.enabled))('named leases ($label)', ({ name }) => {
  it('are free when their holder is not a live instance, and held while it is', async () => {
    const s = await startServer(name);
    try {
      // an older release's holder: a bare UUID, never an instance
      await holdLease(s, randomUUID());
      expect(await sweepOnce(s.runtime)).not.toBeNull();

      // an instance killed with the lease in hand: its liveness row has expired
      const dead = await instance(s, -60_000);
      await holdLease(s, `${dead}/${randomUUID()}`);
      expect(await sweepOnce(s.runtime)).not.toBeNull();

      // a live instance's lease is respected until it expires or the instance dies
      const live = await instance(s, 60_000);
      await holdLease(s, `${live}/${randomUUID()}`);
      expect(await sweepOnce(s.runtime)).toBeNull();
      await s.runtime.db.deleteFrom('instances').where('id', '=', live).execute();
      expect(await sweepOnce(s.runtime)).not.toBeNull();
    } finally {
      await s.close();
    }
  });
});
