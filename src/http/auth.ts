import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { Lru } from '../lib/lru.js';

type PlanName = keyof Deps['plans'];

/** The account's own render defaults (GET /account/settings); null: the operator's. */
export interface AccountRenderDefaults {
  locale: string | null;
  timezone: string | null;
}

export interface AuthContext {
  accountId: string;
  plan: PlanName;
  keyId: string;
  /** read with the key, so a render needs no query of its own for them */
  renderDefaults: AccountRenderDefaults;
}

/** The account use case that checks a presented key (injected: http/ knows no domain module). */
export type KeyLookup = (
  key: string,
) => Promise<({ accountId: string; plan: string; keyId: string } & Partial<AccountRenderDefaults>) | undefined>;

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

/** Client addresses remembered as blocked, per process (the counts themselves live in the rate limiter). */
const MAX_BLOCKED_ADDRESSES = 10_000;
/** Keys remembered as valid, and as unknown, per process: a SHA-256 digest (~100 bytes) each. */
const MAX_REMEMBERED_KEYS = 10_000;

const digest = (secret: string) => createHash('sha256').update(secret).digest('base64url');

/**
 * Require `Authorization: Bearer <key>`; a missing, malformed, unknown or revoked key is 401.
 * Failed attempts are counted per client address (shared across instances with Redis); past
 * `authFailuresPerMinute` the address is throttled for the rest of the window: its failures get 429
 * RATE_LIMITED, answered without a key lookup, but its valid keys keep working (issue 27: behind a
 * proxy without TRUST_PROXY every client shares one address, and one misconfigured client locked
 * every customer out). From a throttled address:
 * - a key this process has seen valid is looked up as usual (so a revocation still holds at once);
 * - a key it has seen fail is refused at once;
 * - any other key is looked up within a second per-address budget of `authFailuresPerMinute` lookups
 *   a minute, so a flood of made-up keys costs that many lookups at most (past it, 429);
 * - a missing or malformed header is refused at once.
 */
export function authenticate(deps: Pick<Deps, 'rateLimiter' | 'clock' | 'config'>, lookupKey: KeyLookup) {
  const blockedUntil = new Lru<string, number>(MAX_BLOCKED_ADDRESSES);
  const valid = new Lru<string, true>(MAX_REMEMBERED_KEYS);
  const invalid = new Lru<string, true>(MAX_REMEMBERED_KEYS);
  const limit = deps.config.limits.authFailuresPerMinute;
  const throttled = (seconds: number) =>
    new AppError(
      'RATE_LIMITED',
      `Too many failed authentications from this address; retry in ${seconds} s`,
      undefined,
      { 'Retry-After': String(seconds) },
    );

  const fail = async (ip: string, err: AppError): Promise<never> => {
    const r = await deps.rateLimiter.hit(`authfail:${ip}`, limit, 60);
    if (r.allowed) throw err;
    blockedUntil.set(ip, deps.clock.now().getTime() + r.resetSeconds * 1000);
    throw throttled(r.resetSeconds);
  };

  /** Seconds the address stays throttled, 0 when it is not. */
  const throttledFor = (ip: string): number => {
    const until = blockedUntil.get(ip);
    if (until === undefined) return 0;
    const left = Math.ceil((until - deps.clock.now().getTime()) / 1000);
    if (left > 0) return left;
    blockedUntil.delete(ip);
    return 0;
  };

  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    const secret = header ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    const key = secret === undefined ? undefined : digest(secret);
    const left = throttledFor(request.ip);
    if (left > 0) {
      if (key === undefined || invalid.get(key)) throw throttled(left);
      if (!valid.get(key)) {
        const probe = await deps.rateLimiter.hit(`authprobe:${request.ip}`, limit, 60);
        if (!probe.allowed) throw throttled(left);
      }
    }
    if (!header)
      return fail(
        request.ip,
        new AppError('UNAUTHORIZED', 'Missing Authorization header; send "Authorization: Bearer <API key>"'),
      );
    if (secret === undefined || key === undefined)
      return fail(
        request.ip,
        new AppError('UNAUTHORIZED', 'Malformed Authorization header; expected "Bearer <API key>"'),
      );
    const found = await lookupKey(secret);
    if (!found) {
      valid.delete(key);
      invalid.set(key, true);
      return fail(request.ip, new AppError('UNAUTHORIZED', 'Invalid or revoked API key'));
    }
    valid.set(key, true);
    request.auth = {
      accountId: found.accountId,
      plan: found.plan as PlanName,
      keyId: found.keyId,
      renderDefaults: { locale: found.locale ?? null, timezone: found.timezone ?? null },
    };
  };
}

/** Per-key request rate (contract: per API key, per minute), with RateLimit-* headers on every answer. */
export function rateLimit(deps: Pick<Deps, 'rateLimiter' | 'plans'>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const limit = deps.plans[request.auth.plan].requestsPerMinute;
    const r = await deps.rateLimiter.hit(`rl:${request.auth.keyId}`, limit, 60);
    reply.header('RateLimit-Limit', String(r.limit));
    reply.header('RateLimit-Remaining', String(r.remaining));
    reply.header('RateLimit-Reset', String(r.resetSeconds));
    if (!r.allowed) {
      throw new AppError(
        'RATE_LIMITED',
        `Rate limit of ${r.limit} requests per minute exceeded; retry in ${r.resetSeconds} s`,
        undefined,
        {
          'Retry-After': String(r.resetSeconds),
        },
      );
    }
  };
}
