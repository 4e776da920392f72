import type { Page } from './types.js';

/** Where the next page starts: its number, and the id of the last item seen (for cursor lists). */
export interface PageCursor {
  page: number;
  startingAfter?: string;
}

/**
 * Every page of a list, fetched one at a time as the loop asks for them. `listPage` is given the page
 * number and the id of the last item seen: offset lists use `page`, cursor lists (templates:
 * `starting_after`) use `startingAfter` and stay stable while items are added meanwhile.
 */
export async function* pages<T extends { id: string }>(
  listPage: (cursor: PageCursor) => Promise<Page<T>>,
): AsyncGenerator<Page<T>, void, undefined> {
  let cursor: PageCursor = { page: 1 };
  for (;;) {
    const page = await listPage(cursor);
    if (page.data.length > 0) yield page;
    const last = page.data.at(-1);
    // a short page is the last; so is one that reaches the total (offset lists)
    if (!last || page.data.length < page.meta.limit || page.meta.page * page.meta.limit >= page.meta.total) return;
    cursor = { page: cursor.page + 1, startingAfter: last.id };
  }
}

/** Every item of a list, page after page: `for await (const t of paginate(...))`. */
export async function* paginate<T extends { id: string }>(
  listPage: (cursor: PageCursor) => Promise<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  for await (const page of pages(listPage)) yield* page.data;
}
