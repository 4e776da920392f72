import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { isAlive } from '../adapters/db/instances.js';
import {
  deleteKey,
  deleteKeyCreatedBefore,
  findKey,
  insertKeyIfAbsent,
  type KeyRef,
  saveKeyResponse,
  takeOverKey,
} from './idempotency-records.js';

// Idempotency-Key with Stripe's semantics on POST /v1/renders and POST /v1/templates: the same key and the
// same body replay the first successful answer (no second quota charge); the same key with another body
// is IDEMPOTENCY_KEY_REUSED; a retry while the first is still running is IDEMPOTENCY_KEY_IN_USE. Only
// successes are remembered: after an error the client may retry with the same key. Keys live 24 hours.
// A key in progress records the instance (server process) running it: when that process has died (crash,
// kill -9), nobody will finish or release the key, so a retry takes it over as soon as the process's
// liveness row expires (see adapters/db/instances.ts) instead of answering IN_USE for 24 hours.

const KEY = /^[\x21-\x7e]{1,255}$/;
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export function hashBody(...parts: (string | Uint8Array)[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(typeof p === 'string' ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength));
    h.update('\0');
  }
  return h.digest('hex');
}

/**
 * `hashBody(prefix + text)` of a JSON body, from its bytes: the digest of its decoded text, so keys stored
 * before bodies were kept as bytes still match. Valid UTF-8 is hashed as it is (its decoding encodes back
 * to the same bytes); malformed UTF-8 through its decoding, whose replacement characters the old digest saw.
 */
export function hashJsonBody(bytes: Buffer | undefined, prefix = ''): string {
  const h = createHash('sha256');
  h.update(prefix);
  if (bytes) h.update(isUtf8(bytes) ? bytes : bytes.toString('utf8'));
  h.update('\0');
  return h.digest('hex');
}

/**
 * How a route's answer is kept for replays when it holds secrets (a signed download link): `store`
 * gives what may rest in the database, `restore` rebuilds the answer from it at replay time (a fresh
 * signature), so no live link sits in `idempotency_keys.response`.
 */
export interface ReplayCodec {
  store(body: unknown): unknown;
  restore(stored: unknown): Promise<unknown>;
}

const PLAIN: ReplayCodec = { store: (body) => body, restore: async (stored) => stored };

export async function idempotent(
  deps: Pick<Deps, 'db' | 'clock' | 'instanceId'>,
  request: FastifyRequest,
  reply: FastifyReply,
  route: string,
  /** hashBody of what binds the key; computed only when the request carries one (an upload hashes MBs) */
  hashOfBody: () => string,
  run: () => Promise<{ status: number; body: unknown }>,
  codec: ReplayCodec = PLAIN,
): Promise<FastifyReply> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) {
    const r = await run();
    return reply.status(r.status).send(r.body);
  }
  if (typeof header !== 'string' || !KEY.test(header)) {
    throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1-255 printable ASCII characters', {
      field: 'Idempotency-Key',
      expected: '1-255 printable ASCII characters',
      received: 'invalid header',
    });
  }
  const accountId = request.auth.accountId;
  const bodyHash = hashOfBody();
  const now = deps.clock.now();
  const where: KeyRef = { account_id: accountId, key: header, route };

  // Expired keys are forgotten lazily, so a reused old key starts fresh.
  await deleteKeyCreatedBefore(deps.db, where, new Date(now.getTime() - IDEMPOTENCY_TTL_MS).toISOString());
  const inserted = await insertKeyIfAbsent(deps.db, {
    ...where,
    body_hash: bodyHash,
    status_code: null,
    response: null,
    created_at: now.toISOString(),
    owner: deps.instanceId,
  });

  if (!inserted) {
    const prior = await findKey(deps.db, where);
    if (prior && prior.body_hash !== bodyHash) {
      throw new AppError(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was already used with a different request body',
        {
          field: 'Idempotency-Key',
          expected: 'the body of the first request with this key',
          received: 'a different body',
        },
      );
    }
    if (prior && prior.status_code !== null && prior.response !== null) {
      reply.header('Idempotent-Replayed', 'true');
      const stored: unknown = typeof prior.response === 'string' ? JSON.parse(prior.response) : prior.response;
      return reply.status(prior.status_code).send(await codec.restore(stored));
    }
    if (!prior || !(await takeOver(deps, where, prior.owner))) {
      throw new AppError(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this Idempotency-Key is still being processed; retry shortly',
        undefined,
        { 'Retry-After': '1' },
      );
    }
  }

  let result: { status: number; body: unknown };
  try {
    result = await run();
  } catch (err) {
    await deleteKey(deps.db, where);
    throw err;
  }
  await saveKeyResponse(deps.db, where, result.status, JSON.stringify(codec.store(result.body)));
  return reply.status(result.status).send(result.body);
}

/**
 * Takes over a key left in progress by a dead instance; false while its owner lives (or another retry
 * took it first). Rows written before owners were recorded (NULL) keep waiting for their 24 hours.
 */
async function takeOver(
  deps: Pick<Deps, 'db' | 'clock' | 'instanceId'>,
  where: KeyRef,
  owner: string | null,
): Promise<boolean> {
  if (owner === null || (await isAlive(deps, owner))) return false;
  return takeOverKey(deps.db, where, owner, deps.instanceId, deps.clock.now().toISOString());
}
