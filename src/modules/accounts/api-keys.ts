import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../../deps.js';
import type { PageRequest } from '../../adapters/db/paged-list.js';
import { AppError, notFound } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { Lru } from '../../lib/lru.js';
import { lockAccount } from './account-records.js';
import {
  countActiveKeys,
  findActiveKey,
  findKeyRevocation,
  insertApiKey,
  listAllApiKeyRows,
  listApiKeyRows,
  revokeKeyRow,
  touchKeyRow,
} from './api-key-records.js';

// Keys: "fc_live_" + 32 random base62 characters (~190 bits). Only a SHA-256 is stored: the keys are
// high-entropy, so a slow password hash buys nothing and would cost every request.

const KEY_PREFIX = 'fc_live_';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

function generateSecret(): string {
  const bytes = randomBytes(48);
  let out = '';
  for (const b of bytes) {
    if (b < 248) out += ALPHABET[b % 62]; // 248 = 4*62: drop the tail so every character is equally likely
    if (out.length === 32) break;
  }
  return out.length === 32 ? KEY_PREFIX + out : generateSecret();
}

function hashKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Insert a key without quota checks (first key of a new account, operator CLI). */
export async function issueApiKey(deps: Pick<Deps, 'db' | 'clock'>, accountId: string, name: string) {
  const secret = generateSecret();
  const row = {
    id: newId('key'),
    account_id: accountId,
    name,
    prefix: secret.slice(0, KEY_PREFIX.length + 4),
    hash: hashKey(secret),
    created_at: deps.clock.now().toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  await insertApiKey(deps.db, row);
  return { id: row.id, secret, view: toView(row) };
}

/** POST /v1/api-keys: within the plan's key quota (active keys only), exact under concurrency. */
export async function createApiKey(
  deps: Pick<Deps, 'db' | 'dbKind' | 'clock' | 'plans'>,
  account: { id: string; plan: string },
  name: string,
) {
  const limit = deps.plans[account.plan as keyof Deps['plans']].apiKeys;
  return deps.db.transaction().execute(async (trx) => {
    await lockAccount(trx, deps.dbKind, account.id);
    const n = await countActiveKeys(trx, account.id);
    if (n >= limit) {
      throw new AppError(
        'API_KEY_LIMIT_REACHED',
        `API key limit reached: ${n}/${limit} active keys on the ${account.plan} plan`,
      );
    }
    return issueApiKey({ db: trx, clock: deps.clock }, account.id, name);
  });
}

/** A page of the account's keys, newest first, revoked ones included (GET /v1/api-keys). */
export async function listApiKeyPage(deps: Pick<Deps, 'db'>, accountId: string, page: PageRequest) {
  const { rows, meta } = await listApiKeyRows(deps.db, accountId, page);
  return { data: rows.map(toView), meta };
}

/** Every key of the account, newest first (the operator's `keys list`). */
export async function listApiKeys(deps: Pick<Deps, 'db'>, accountId: string): Promise<ApiKeyView[]> {
  return (await listAllApiKeyRows(deps.db, accountId)).map(toView);
}

/** Revocation is immediate and final; revoking twice answers the same 204. */
export async function revokeApiKey(deps: Pick<Deps, 'db' | 'clock'>, accountId: string, keyId: string): Promise<void> {
  const row = await findKeyRevocation(deps.db, accountId, keyId);
  if (!row) throw notFound.apiKey(keyId);
  if (row.revoked_at) return;
  await revokeKeyRow(deps.db, accountId, keyId, deps.clock.now());
}

/** Resolve a bearer secret to its account; undefined for unknown or revoked keys. */
async function findKey(deps: Pick<Deps, 'db'>, secret: string) {
  if (!secret.startsWith(KEY_PREFIX) || secret.length > 100) return undefined;
  return findActiveKey(deps.db, hashKey(secret));
}

const TOUCH_EVERY_MS = 60_000;
/** Keys whose last write of `lastUsedAt` this process remembers (~100 bytes each). */
const MAX_TOUCHED_KEYS = 10_000;

/**
 * The key check of the API's auth hook (app.ts makes one per app): resolves a bearer secret to its
 * account, undefined for unknown or revoked keys, and records the key's `lastUsedAt` at most once a
 * minute. The minute is kept here per key, so most requests issue no write at all; the UPDATE's own
 * condition keeps the rule across instances (each instance writes at most once a minute, and only
 * when the stored time is older than that).
 */
export function keyAuthenticator(deps: Pick<Deps, 'db' | 'clock'>) {
  const touchedAt = new Lru<string, number>(MAX_TOUCHED_KEYS);
  return async (secret: string) => {
    const found = await findKey(deps, secret);
    if (found) {
      const now = deps.clock.now();
      const last = touchedAt.get(found.keyId);
      // the UPDATE's condition, from memory: it would change nothing before then (nor while the clock
      // reads earlier than the last write)
      if (last === undefined || now.getTime() - last > TOUCH_EVERY_MS) {
        touchedAt.set(found.keyId, now.getTime());
        void touchKey(deps, found.keyId, now); // off the request path
      }
    }
    return found;
  };
}

async function touchKey(deps: Pick<Deps, 'db'>, keyId: string, now: Date): Promise<void> {
  // bookkeeping only: never fail a request over it
  await touchKeyRow(deps.db, keyId, now, TOUCH_EVERY_MS).catch(() => undefined);
}

function toView(row: {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
