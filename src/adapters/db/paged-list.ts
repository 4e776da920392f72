import { sql, type SelectQueryBuilder } from 'kysely';
import { validationError } from '../../errors.js';

// The one paged list query of the API (templates, renders, webhook endpoints, deliveries, endpoint log):
// newest first, `created_at desc, id desc` (a total order: ids break ties between rows of one instant),
// offset pages of `limit`, and the total of the whole filtered list beside them. One row more than the
// page is read: whether there is more (`hasMore`) is known without trusting the total, which a concurrent
// insert may already have changed.

export interface PageRequest {
  page: number;
  limit: number;
  /** an item id of the list (`starting_after`): the page is counted from just after it */
  startingAfter?: string;
}

export interface PageMeta extends PageRequest {
  total: number;
  /** another page follows this one */
  hasMore: boolean;
  /** the id to pass as `starting_after` for the next page; null on the last page */
  nextCursor: string | null;
}

/** The meta of a page read with one extra row (`rows` may hold limit + 1); returns the page's rows. */
export function pageOf<O>(
  rows: O[],
  page: Pick<PageRequest, 'page' | 'limit'>,
  total: number,
  cursorOf: (row: O) => string,
) {
  const hasMore = rows.length > page.limit;
  const kept = hasMore ? rows.slice(0, page.limit) : rows;
  const last = kept.at(-1);
  const meta: PageMeta = {
    page: page.page,
    limit: page.limit,
    total,
    hasMore,
    nextCursor: hasMore && last !== undefined ? cursorOf(last) : null,
  };
  return { rows: kept, meta };
}

/** A row of the list: with `startingAfter`, the page is counted from just after it (see http/pagination.ts). */
export interface PageCursor {
  created_at: string;
  id: string;
}

const createdAt = sql.ref<string>('created_at');
const id = sql.ref<string>('id');

/**
 * Where the item `id` stands in `filtered` (the same list: account and filters), for `starting_after`;
 * an id that is not in the list is a VALIDATION_ERROR on `starting_after`.
 */
async function cursorAt<DB, TB extends keyof DB>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  itemId: string,
): Promise<PageCursor> {
  const row = await filtered
    .select([createdAt.as('created_at'), id.as('id')])
    .where(id, '=', itemId)
    .$castTo<PageCursor>()
    .executeTakeFirst();
  if (!row)
    throw validationError({
      field: 'starting_after',
      expected: 'the id of an item of this list',
      received: JSON.stringify(itemId.slice(0, 100)),
    });
  return row;
}

/**
 * One page of `filtered` (a query of one table with its WHERE: the account, any filter) with the columns
 * `columns` selects, and the count of every row `filtered` matches (the cursor does not shrink the total).
 */
export async function listPage<DB, TB extends keyof DB, O>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  columns: (q: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  cursor?: PageCursor | string,
): Promise<{ rows: O[]; meta: PageMeta }> {
  const given = cursor ?? page.startingAfter;
  const startingAfter = typeof given === 'string' ? await cursorAt(filtered, given) : given;
  const [rows, total] = await Promise.all([
    columns(filtered)
      .$if(startingAfter !== undefined, (q) =>
        q.where((eb) =>
          eb.or([
            eb(createdAt, '<', startingAfter!.created_at),
            eb.and([eb(createdAt, '=', startingAfter!.created_at), eb(id, '<', startingAfter!.id)]),
          ]),
        ),
      )
      .orderBy(createdAt, 'desc')
      .orderBy(id, 'desc')
      .limit(page.limit + 1)
      .offset((page.page - 1) * page.limit)
      .execute(),
    filtered
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .$castTo<{ n: number }>() // what the select gives; generic tables hide it from the compiler
      .executeTakeFirstOrThrow(),
  ]);
  return pageOf(rows as O[], page, Number(total.n), (row) => String((row as { id?: unknown }).id));
}
