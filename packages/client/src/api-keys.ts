import type { Context } from './context.js';
import { unwrap } from './transport.js';
import type { ApiKey, ApiKeyCreated } from './types.js';

/** client.apiKeys: the account's keys. */
export function apiKeysApi({ raw }: Context) {
  return {
    /** Every key: the API answers in pages, walked here (an account has few keys). */
    list: async (): Promise<ApiKey[]> => {
      const all: ApiKey[] = [];
      let after: string | undefined;
      do {
        const query = after ? { limit: 100, starting_after: after } : { limit: 100 };
        const page = await unwrap(raw.GET('/v1/api-keys', { params: { query } }));
        all.push(...page.data);
        after = page.meta.hasMore ? (page.meta.nextCursor ?? undefined) : undefined;
      } while (after);
      return all;
    },
    /** A new key; its secret (`key`) is in this answer only. */
    create: (name?: string): Promise<ApiKeyCreated> =>
      unwrap(raw.POST('/v1/api-keys', name === undefined ? {} : { body: { name } })).then((r) => r.data),
    revoke: (id: string): Promise<void> =>
      unwrap(raw.DELETE('/v1/api-keys/{id}', { params: { path: { id } } })).then(() => undefined),
  };
}
