import { Type, type Static } from '@sinclair/typebox';

// page >= 1, limit 1..100 (default 20); out-of-range values are VALIDATION_ERROR, never clamped.
export const PageQuery = Type.Object(
  {
    page: Type.Integer({ minimum: 1, default: 1, description: 'Page number, from 1' }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Results per page (1-100)' }),
  },
  { additionalProperties: false },
);

/**
 * Offset pages plus a `starting_after` cursor (Stripe's name): the page is counted from just after that
 * item in the list's order, so items added at the head meanwhile do not shift it (offset pages alone
 * repeat an item when one is added between two requests).
 */
export const CursorPageQuery = Type.Object(
  {
    ...PageQuery.properties,
    starting_after: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'Id of the last item of the previous page: list what comes after it (stable while items are added)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CursorPageQuery = Static<typeof CursorPageQuery>;

/** The query of a cursor page as the list use cases take it. */
export function pageRequest(query: CursorPageQuery): { page: number; limit: number; startingAfter?: string } {
  return { page: query.page, limit: query.limit, startingAfter: query.starting_after };
}
