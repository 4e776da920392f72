import type { Config } from './config.js';
import type { Db, DbKind } from './adapters/db/database.js';
import type { BlobStore } from './ports/blob-store.js';
import type { Clock } from './ports/clock.js';
import type { Plans } from './modules/accounts/plans.js';
import type { RenderEngine } from './ports/render-engine.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { Logger } from 'pino';
import type { Metrics } from './ports/metrics.js';
import type { WebhookSender } from './ports/webhook-sender.js';

/** Everything a use case may touch, built once in the composition root (src/bootstrap.ts). */
export interface Deps {
  config: Config;
  db: Db;
  dbKind: DbKind;
  blobs: BlobStore;
  clock: Clock;
  plans: Plans;
  engine: RenderEngine;
  rateLimiter: RateLimiter;
  /** HMAC key for download links */
  signingKey: Buffer;
  log: Logger;
  metrics: Metrics;
  /** sends webhook attempts and judges webhook URLs (SSRF policy) */
  webhookSender: WebhookSender;
  /** this server process in the `instances` liveness table (see adapters/db/instances.ts) */
  instanceId: string;
}
