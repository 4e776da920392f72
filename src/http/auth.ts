import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { Lru } from '../lib/lru.js';

type PlanName = keyof Deps['plans'];

export interface AuthContext {
  accountId: string;
  plan: PlanName;
  keyId: string;
}

/** The account use case that checks a presented key (injected: http/ knows no domain module). */
export type KeyLookup = (key: string) => Promise<{ accountId: string; plan: string; keyId: string } | undefined>;

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

/** Client addresses remembered as blocked, per process (the counts themselves live in the rate limiter). */
const MAX_BLOCKED_ADDRESSES = 10_000;

/**
 * Require `Authorization: Bearer <key>`; a missing, malformed, unknown or revoked key is 401.
 * Failed attempts are counted per client address (shared across instances with Redis); past
 * `authFailuresPerMinute` the address gets 429 RATE_LIMITED for the rest of the window, answered
 * from memory before any key lookup, so a flood of bad keys costs no database work.
 */
export function authenticate(deps: Pick<Deps, 'rateLimiter' | 'clock' | 'config'>, lookupKey: KeyLookup) {
  const blockedUntil = new Lru<string, number>(MAX_BLOCKED_ADDRESSES);
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

  return async (request: FastifyRequest): Promise<void> => {
    const until = blockedUntil.get(request.ip);
    if (until !== undefined) {
      const left = Math.ceil((until - deps.clock.now().getTime()) / 1000);
      if (left > 0) throw throttled(left);
      blockedUntil.delete(request.ip);
    }
    const header = request.headers.authorization;
    if (!header)
      return fail(
        request.ip,
        new AppError('UNAUTHORIZED', 'Missing Authorization header; send "Authorization: Bearer <API key>"'),
      );
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match)
      return fail(
        request.ip,
        new AppError('UNAUTHORIZED', 'Malformed Authorization header; expected "Bearer <API key>"'),
      );
    const found = await lookupKey(match[1]);
    if (!found) return fail(request.ip, new AppError('UNAUTHORIZED', 'Invalid or revoked API key'));
    request.auth = { accountId: found.accountId, plan: found.plan as PlanName, keyId: found.keyId };
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
