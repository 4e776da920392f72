import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Db, DbKind } from '../../adapters/db/database.js';
import { listPage, type PageRequest } from '../../adapters/db/paged-list.js';
import type { Database, WebhookDeliveriesTable } from '../../adapters/db/schema.js';
import { newId } from '../../lib/ids.js';

// The one owner of the `webhook_deliveries` table: every statement on it lives here. The account's use
// cases go through account-scoped functions; the delivery worker's work on deliveries it claimed (by
// token), the purge across accounts. `db` may be a transaction wherever a caller needs one.

export type DeliveryRow = WebhookDeliveriesTable;

export interface DeliveryOrigin {
  eventId: string;
  accountId: string;
  type: string;
  traceparent?: string;
}

/** A delivery of an event to an endpoint, due now. */
export function newDeliveryRow(origin: DeliveryOrigin, endpointId: string, now: Date): DeliveryRow {
  const at = now.toISOString();
  return {
    id: newId('whd'),
    account_id: origin.accountId,
    endpoint_id: endpointId,
    event_id: origin.eventId,
    event_type: origin.type,
    status: 'pending',
    attempts: 0,
    next_attempt_at: at,
    claimed_by: null,
    last_attempt_at: null,
    last_status_code: null,
    last_error: null,
    last_duration_ms: null,
    attempt_log: '[]',
    created_at: at,
    completed_at: null,
    traceparent: origin.traceparent ?? null,
  };
}

export async function insertDeliveries(db: Db, rows: DeliveryRow[]): Promise<void> {
  await db.insertInto('webhook_deliveries').values(rows).execute();
}

// ---- one account's deliveries -------------------------------------------------------------------------

export async function findDelivery(db: Db, accountId: string, id: string): Promise<DeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** A page of an endpoint's deliveries, newest first, optionally of one status. */
export async function listDeliveryRows(
  db: Db,
  accountId: string,
  endpointId: string,
  query: PageRequest & { status?: string },
) {
  const filtered = db
    .selectFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpointId)
    .where('account_id', '=', accountId)
    .$if(query.status !== undefined, (q) => q.where('status', '=', query.status!));
  return listPage(filtered, (q) => q.selectAll(), query);
}

/** Due again at `now`, unless an attempt is in flight (claimed, lease not over); true when rescheduled. */
export async function rescheduleDelivery(db: Db, accountId: string, id: string, now: string): Promise<boolean> {
  const res = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, completed_at: null })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('claimed_by', 'is', null), eb('next_attempt_at', '<', now)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** An endpoint's deliveries, deleted with it. */
export async function deleteEndpointDeliveries(db: Db, accountId: string, endpointId: string): Promise<void> {
  await db
    .deleteFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpointId)
    .where('account_id', '=', accountId)
    .execute();
}

/**
 * Stop the deliveries still scheduled for an endpoint being disabled: they are failed with `reason` and
 * can be sent again with POST /v1/webhook-deliveries/:id/retry. An attempt in flight finishes normally.
 */
export async function cancelPendingDeliveries(trx: Db, endpointId: string, reason: string, now: Date): Promise<number> {
  const res = await trx
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: reason, completed_at: now.toISOString() })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    // not claimed, or claimed by an attempt whose lease is over (its process died)
    .where((eb) => eb.or([eb('claimed_by', 'is', null), eb('next_attempt_at', '<', now.toISOString())]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}

// ---- the delivery worker --------------------------------------------------------------------------------

// Claiming due deliveries so that each attempt is made once across instances. The claim is one UPDATE:
// it stamps the rows with this claim's token, counts the attempt and moves `next_attempt_at` to the end
// of a lease. On PostgreSQL the inner SELECT ... FOR UPDATE SKIP LOCKED lets instances claim side by side
// without waiting on or taking each other's rows; SQLite runs the statement under its single writer lock.
// A process killed mid-attempt leaves its rows claimed until the lease ends; they are then due again
// and the next claim takes them (the interrupted attempt counts as one).

export interface ClaimedDelivery {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempts: number;
  /** the publishing work's trace (see NewEvent.traceparent) */
  traceparent: string | null;
}

/**
 * Claims up to `limit` due deliveries, fairly: round-robin across accounts (every account's oldest due
 * delivery before anyone's second), and never more than `perEndpoint` attempts in flight to one endpoint
 * or `perAccount` for one account, counting those already in flight (claimed, lease not over). So a
 * dead or hanging receiver holds at most `perEndpoint` sending slots, whatever its backlog, and one
 * account's flood waits behind other accounts' single events. Across instances the caps hold per claim:
 * two instances claiming at the same instant may each fill an endpoint's share once.
 */
export async function claimDueDeliveries(
  db: Db,
  kind: DbKind,
  input: { token: string; now: Date; leaseMs: number; limit: number; perEndpoint: number; perAccount: number },
): Promise<ClaimedDelivery[]> {
  const now = input.now.toISOString();
  const leaseEnd = new Date(input.now.getTime() + input.leaseMs).toISOString();
  const lock = kind === 'postgres' ? sql`for update of d skip locked` : sql``;
  const result = await sql<ClaimedDelivery>`
    with in_flight as (
      select endpoint_id, account_id from webhook_deliveries
       where status = 'pending' and claimed_by is not null and next_attempt_at > ${now}
    ),
    endpoint_busy as (select endpoint_id, count(*) as n from in_flight group by endpoint_id),
    account_busy as (select account_id, count(*) as n from in_flight group by account_id),
    due as (
      select d.id, d.account_id, d.next_attempt_at,
             row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) + coalesce(e.n, 0) as endpoint_slot
        from webhook_deliveries d
        left join endpoint_busy e on e.endpoint_id = d.endpoint_id
       where d.status = 'pending' and d.next_attempt_at <= ${now}
    ),
    fair as (
      select due.id, due.next_attempt_at,
             row_number() over (partition by due.account_id order by due.next_attempt_at, due.id) + coalesce(a.n, 0) as account_slot
        from due
        left join account_busy a on a.account_id = due.account_id
       where due.endpoint_slot <= ${input.perEndpoint}
    )
    update webhook_deliveries
       set claimed_by = ${input.token}, next_attempt_at = ${leaseEnd}, attempts = attempts + 1, last_attempt_at = ${now}
     where id in (
       -- locked (PostgreSQL) before the limit, so concurrent claims pass over each other's rows; the row's
       -- own state is checked again, as PostgreSQL re-reads a row another claim has just taken
       select d.id from webhook_deliveries d
         join fair f on f.id = d.id
        where f.account_slot <= ${input.perAccount} and d.status = 'pending' and d.next_attempt_at <= ${now}
        order by f.account_slot, f.next_attempt_at, f.id
        limit ${input.limit}
        ${lock})
    returning id, account_id, endpoint_id, event_id, event_type, attempts, traceparent`.execute(db);
  return result.rows;
}

/** The attempt log of a delivery and who holds its claim now; undefined when deleted. */
export async function claimState(db: Db, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .select(['attempt_log', 'claimed_by'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** What an attempt records on its delivery. */
export type AttemptOutcome = Pick<
  DeliveryRow,
  'status' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'last_duration_ms' | 'attempt_log' | 'completed_at'
>;

/** Records an attempt and releases the claim, only while `token` still holds it. */
export async function recordAttemptOutcome(db: Db, id: string, token: string, outcome: AttemptOutcome): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      claimed_by: null,
      next_attempt_at: outcome.next_attempt_at,
      last_status_code: outcome.last_status_code,
      last_error: outcome.last_error,
      last_duration_ms: outcome.last_duration_ms,
      attempt_log: outcome.attempt_log,
      completed_at: outcome.completed_at,
    })
    .where('id', '=', id)
    .where('claimed_by', '=', token)
    .execute();
}

// ---- retention, across accounts -------------------------------------------------------------------------

/** Deletes up to `limit` finished deliveries created before `cutoff`; how many. */
export async function purgeFinishedDeliveries(db: Db, cutoff: string, limit: number): Promise<number> {
  const res = await db
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '!=', 'pending')
        .where('created_at', '<', cutoff)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** For a WHERE on events: a delivery of the event is still kept. */
export function eventHasDeliveries(eb: ExpressionBuilder<Database, 'events'>): Expression<SqlBool> {
  return eb.exists(
    eb.selectFrom('webhook_deliveries').select(sql.lit(1).as('x')).whereRef('event_id', '=', 'events.id'),
  );
}
