// An API key's lastUsedAt is written at most once a minute per key, and the minute is kept in the
// process: requests in between issue no statement at all. The clock is the injectable one; which
// statements are issued is observed through a Kysely plugin on the real database (counted when the
// query is compiled, which happens before the key check answers).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { KyselyPlugin } from 'kysely';
import { keyAuthenticator } from '../../src/modules/accounts/api-keys.js';
import { DATABASES, startServer, TestClock, type TestServer } from '../helpers/server.js';

const MINUTE = 60_000;

describe.each(DATABASES.filter((d) => d.enabled))('API key lastUsedAt ($label)', ({ name }) => {
  let s: TestServer;
  const clock = new TestClock(Date.parse('2030-03-10T08:00:00Z'));
  /** UPDATEs of api_keys issued through `db` below, and how many of them have finished */
  let writes = 0;
  let finished = 0;
  const updates = new Set<unknown>();
  const countWrites: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (node.kind === 'UpdateQueryNode') {
        writes++;
        updates.add(queryId);
      }
      return node;
    },
    transformResult: async ({ result, queryId }) => {
      if (updates.delete(queryId)) finished++;
      return result;
    },
  };

  beforeAll(async () => {
    s = await startServer(name, { overrides: { clock } });
  });
  afterAll(() => s?.close());

  async function lastUsedAt(keyOwner: string): Promise<string | null> {
    const row = await s.runtime.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('account_id', '=', keyOwner)
      .executeTakeFirstOrThrow();
    return row.last_used_at;
  }

  /** The write is off the request path: wait until every issued UPDATE has finished, then read. */
  async function settled(keyOwner: string): Promise<string | null> {
    await vi.waitFor(() => expect(finished).toBe(writes), { timeout: 30_000, interval: 5 });
    return lastUsedAt(keyOwner);
  }

  it('writes on the first use, then not again until a minute has passed', async () => {
    const db = s.runtime.db.withPlugin(countWrites);
    const check = keyAuthenticator({ db, clock });
    const t = await s.newTenant('Pro');
    writes = 0;
    finished = 0;

    const first = clock.now().toISOString();
    expect(await check(t.key)).toMatchObject({ accountId: t.accountId });
    expect(writes).toBe(1);
    expect(await settled(t.accountId)).toBe(first);

    clock.advance(MINUTE);
    expect(await check(t.key)).toMatchObject({ accountId: t.accountId });
    expect(await check(t.key)).toMatchObject({ accountId: t.accountId });
    expect(writes).toBe(1); // not more than a minute later: no statement issued

    clock.advance(1);
    const second = clock.now().toISOString();
    await check(t.key);
    expect(writes).toBe(2);
    expect(await settled(t.accountId)).toBe(second);

    clock.advance(-60 * MINUTE); // the clock moved back: the stored time is newer, nothing to write
    await check(t.key);
    expect(writes).toBe(2);
    expect(await settled(t.accountId)).toBe(second);
  });

  it('keeps the minute per key, and an unknown key writes nothing', async () => {
    const db = s.runtime.db.withPlugin(countWrites);
    const check = keyAuthenticator({ db, clock });
    const [t1, t2] = [await s.newTenant('Pro'), await s.newTenant('Pro')];
    writes = 0;
    finished = 0;
    await check(t1.key);
    await check(t2.key);
    expect(writes).toBe(2);
    await check(t1.key);
    await check(t2.key);
    expect(writes).toBe(2);
    expect(await check('fc_live_unknownunknownunknownunknown0')).toBeUndefined();
    expect(writes).toBe(2);
  });
});
