import type { Context } from './context.js';
import { unwrap } from './transport.js';
import type { ApiKey, ApiKeyCreated } from './types.js';

/** client.apiKeys: the account's keys. */
export function apiKeysApi({ raw }: Context) {
  return {
    list: (): Promise<ApiKey[]> => unwrap(raw.GET('/v1/api-keys')).then((r) => r.data),
    /** A new key; its secret (`key`) is in this answer only. */
    create: (name?: string): Promise<ApiKeyCreated> =>
      unwrap(raw.POST('/v1/api-keys', name === undefined ? {} : { body: { name } })).then((r) => r.data),
    revoke: (id: string): Promise<void> =>
      unwrap(raw.DELETE('/v1/api-keys/{id}', { params: { path: { id } } })).then(() => undefined),
  };
}
