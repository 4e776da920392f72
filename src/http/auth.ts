import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { authenticateKey } from '../modules/accounts/api-keys.js';
import type { PlanName } from '../modules/accounts/plans.js';

export interface AuthContext {
  accountId: string;
  plan: PlanName;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

/** Require `Authorization: Bearer <key>`; a missing, malformed, unknown or revoked key is 401. */
export function authenticate(deps: Pick<Deps, 'db'>) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (!header) throw new AppError('UNAUTHORIZED', 'Missing Authorization header; send "Authorization: Bearer <API key>"');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new AppError('UNAUTHORIZED', 'Malformed Authorization header; expected "Bearer <API key>"');
    const found = await authenticateKey(deps, match[1]);
    if (!found) throw new AppError('UNAUTHORIZED', 'Invalid or revoked API key');
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
      throw new AppError('RATE_LIMITED', `Rate limit of ${r.limit} requests per minute exceeded; retry in ${r.resetSeconds} s`, undefined, {
        'Retry-After': String(r.resetSeconds),
      });
    }
  };
}
