import { sql, type SelectQueryBuilder } from 'kysely';

// The one paged list query of the API (templates, renders, webhook endpoints, deliveries, endpoint log):
// newest first, `created_at desc, id desc` (a total order: ids break ties between rows of one instant),
// offset pages of `limit`, and the total of the whole filtered list beside them.

export interface PageRequest {
  page: number;
  limit: number;
}

export interface PageMeta extends PageRequest {
  total: number;
}

/** A row of the list: with `startingAfter`, the page is counted from just after it (see http/pagination.ts). */
export interface PageCursor {
  created_at: string;
  id: string;
}

const createdAt = sql.ref<string>('created_at');
const id = sql.ref<string>('id');

/**
 * One page of `filtered` (a query of one table with its WHERE: the account, any filter) with the columns
 * `columns` selects, and the count of every row `filtered` matches (the cursor does not shrink the total).
 */
export async function listPage<DB, TB extends keyof DB, O>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  columns: (q: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  startingAfter?: PageCursor,
): Promise<{ rows: O[]; meta: PageMeta }> {
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
      .limit(page.limit)
      .offset((page.page - 1) * page.limit)
      .execute(),
    filtered
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .$castTo<{ n: number }>() // what the select gives; generic tables hide it from the compiler
      .executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as O[], meta: { page: page.page, limit: page.limit, total: Number(total.n) } };
}
