import { randomUUID } from 'node:crypto';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Clock } from '../../ports/clock.js';
import type { Db } from './database.js';
import type { Database } from './schema.js';

// Liveness of the server processes sharing one database. Each process holds a row in `instances` that
// it renews every third of its time to live and deletes on shutdown. Work a process takes on (a render's
// quota reservation, an Idempotency-Key in progress) records its id as `owner`; when the owner's row is
// missing or expired the process is dead (crash, kill -9, OOM) and nobody will finish that work, so it
// can be recovered at once instead of after a worst-case age.

export interface Heartbeat {
  /** this process's instance id */
  id: string;
  /** stops renewing and deletes the row (clean shutdown: nothing of ours is left running) */
  stop(): Promise<void>;
}

/**
 * How long an instance counts as alive after its last renewal: half the render budget, so a key cut by
 * a crash is retryable within one budget, but at least 2 s (event-loop stalls on a busy machine must
 * not look like a death) and at most 15 s.
 */
export function heartbeatTtlMs(renderTimeoutMs: number): number {
  return Math.min(15_000, Math.max(2_000, Math.floor(renderTimeoutMs / 2)));
}

export async function startHeartbeat(
  db: Db,
  clock: Clock,
  ttlMs: number,
  onError: (err: unknown) => void,
): Promise<Heartbeat> {
  const id = randomUUID();
  const expires = () => new Date(clock.now().getTime() + ttlMs).toISOString();
  await db.insertInto('instances').values({ id, expires_at: expires() }).execute();
  let renewing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(
    () => {
      renewing = db
        .insertInto('instances')
        .values({ id, expires_at: expires() })
        .onConflict((oc) => oc.column('id').doUpdateSet({ expires_at: expires() })) // recreated if someone purged it
        .execute()
        .catch(onError);
    },
    Math.max(500, Math.floor(ttlMs / 3)),
  );
  timer.unref();
  return {
    id,
    async stop() {
      clearInterval(timer);
      await renewing;
      await db.deleteFrom('instances').where('id', '=', id).execute().catch(onError);
    },
  };
}

/** Whether `owner` is a live instance (this process always is, whatever its clock says). */
export async function isAlive(deps: { db: Db; clock: Clock; instanceId: string }, owner: string): Promise<boolean> {
  if (owner === deps.instanceId) return true;
  const row = await deps.db
    .selectFrom('instances')
    .select('id')
    .where('id', '=', owner)
    .where('expires_at', '>=', deps.clock.now().toISOString())
    .executeTakeFirst();
  return row !== undefined;
}

/** Tables whose rows are claimed under a lease: `lease_owner` (an instance id) and `lease_expires_at`. */
type LeasedTable = 'render_jobs' | 'render_batches';

/**
 * A row's lease is free when nobody holds it, it expired, or its holder is a dead instance other than
 * `selfId` (a process killed mid-work: its rows are taken over at once instead of after the lease).
 */
export function leaseIsFree<T extends LeasedTable>(
  eb: ExpressionBuilder<Database, T>,
  table: T,
  selfId: string,
  now: string,
): Expression<SqlBool> {
  const owner = sql.ref<string | null>(`${table}.lease_owner`);
  return eb.or([
    eb(owner, 'is', null),
    eb(sql.ref<string | null>(`${table}.lease_expires_at`), '<', now),
    eb.and([eb(owner, '<>', selfId), eb.not(instanceIsLive(eb, owner, now))]),
  ]);
}

/** For a WHERE: `owner` (an instance id column) names an instance whose liveness row holds at `now`. */
export function instanceIsLive<T extends keyof Database>(
  eb: ExpressionBuilder<Database, T>,
  owner: Expression<string | null>,
  now: string,
): Expression<SqlBool> {
  const live = eb
    .selectFrom('instances')
    .select(sql.lit(1).as('one'))
    .where(sql.ref('instances.id'), '=', owner)
    .where(sql.ref('instances.expires_at'), '>=', now);
  return eb.exists(live);
}

/**
 * For a WHERE: a lease `holder` written as `<instance id>/<anything>` belongs to an instance whose
 * liveness row holds at `now`. A holder of any other form (an older release wrote bare UUIDs) never does.
 */
export function holderIsLive<T extends keyof Database>(
  eb: ExpressionBuilder<Database, T>,
  holder: Expression<string>,
  now: string,
): Expression<SqlBool> {
  const live = eb
    .selectFrom('instances')
    .select(sql.lit(1).as('one'))
    .where(sql<string>`${holder}`, 'like', sql<string>`instances.id || '/%'`)
    .where(sql.ref('instances.expires_at'), '>=', now);
  return eb.exists(live);
}
