import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { CacheSizes, Config } from './config.js';
import type { Caches, Deps, OperatorCertificate } from './deps.js';
import { Lru } from './lib/lru.js';
import { nodeMajor } from './lib/node-version.js';
import { openDatabase } from './adapters/db/database.js';
import { heartbeatTtlMs, startHeartbeat } from './adapters/db/instances.js';
import { FsBlobStore } from './adapters/blob/fs-blob-store.js';
import { MemoryRateLimiter } from './adapters/rate-limit/memory-rate-limiter.js';
import { createPoolEngine } from './adapters/engine/pool-engine.js';
import { loadPlans } from './plans.js';
import { systemClock, type Clock } from './ports/clock.js';
import type { BlobStore } from './ports/blob-store.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import { createLogger } from './logger.js';
import { PromMetrics } from './adapters/metrics/prom-metrics.js';
import { createJobSignal, startJobRunner } from './modules/render-jobs/job-runner.js';
import { startDbClock } from './adapters/clock/db-clock.js';
import { readDbTime } from './adapters/db/db-time.js';
import { staleAfterMs } from './modules/renders/dead-renders.js';
import { HttpWebhookSender } from './adapters/webhook-sender/http-webhook-sender.js';
import { createDeliveryWorker } from './modules/webhooks/delivery-worker.js';
import { startSweeper } from './modules/housekeeping/sweeper.js';
import { noopTracer, type Tracer } from './ports/tracer.js';
import { tracedEngine } from './adapters/tracing/traced-engine.js';
import { tracedBlobStore } from './adapters/tracing/traced-blob-store.js';
import { dbTracingPlugin } from './adapters/tracing/traced-db.js';
import type { FontLibrary } from './pdf/fonts/font-library.js';
import { loopBusy, MainShare } from './adapters/admission/main-share.js';
import { meteredEngine } from './adapters/admission/metered-engine.js';
import { ChainedAdmission } from './adapters/admission/chained-admission.js';
import { UnpaidWorkBudget } from './adapters/admission/unpaid-work.js';
import { openAdmission, type RequestAdmission } from './ports/request-admission.js';

export interface Runtime extends Deps {
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /**
   * Run the housekeeping loops (retention sweep, recovery of renders cut by a dead process). The server
   * does; tests and one-shot commands sweep when they choose to (sweepOnce), so a start-up sweep never
   * races them for the sweeper's lease.
   */
  housekeeping?: boolean;
  /** with tracing on (OTEL_ENABLED), where spans go instead of OTLP/HTTP (tests: the SDK's InMemorySpanExporter) */
  spanExporter?: SpanExporter;
}

/** The composition root: the one place that chooses adapters from configuration. */
export async function createRuntime(
  config: Config,
  overrides: Partial<Deps> & { clock?: Clock; log?: Logger } = {},
  options: RuntimeOptions = {},
): Promise<Runtime> {
  const log = overrides.log ?? createLogger(config.logLevel);
  const plans = overrides.plans ?? loadPlans(config.plansFile);
  // Before anything is opened: a certificate that cannot sign stops the start, nothing left half-started.
  const operatorCertificate =
    overrides.operatorCertificate ??
    (config.operatorCertificate &&
      (await import('./modules/signing/operator-certificate.js')).loadOperatorCertificate(
        config.operatorCertificate,
        (overrides.clock ?? systemClock).now(),
      ));
  if (operatorCertificate) announce(log, operatorCertificate, (overrides.clock ?? systemClock).now());
  mkdirSync(config.dataDir, { recursive: true });
  const dbHandle = await openDatabase(config.database, (err) =>
    log.warn({ err: err.message }, 'database connection lost; reconnecting on next use'),
  );
  // The database's time, so that instances on different machines agree (see adapters/clock/db-clock.ts).
  const dbClock = overrides.clock
    ? undefined
    : await startDbClock(() => readDbTime(dbHandle.db, dbHandle.kind), {
        everyMs: DB_CLOCK_SYNC_MS,
        followBackward: dbHandle.kind === 'postgres',
        onError: (err) => log.warn({ err }, 'could not read the database time; keeping the last reading'),
      });
  const clock = overrides.clock ?? dbClock!.clock;
  // Registered first and removed last: while this process may hold work, it is seen alive.
  const heartbeat = await startHeartbeat(dbHandle.db, clock, heartbeatTtlMs(config.limits.renderTimeoutMs), (err) =>
    log.warn({ err }, 'instance heartbeat failed'),
  );
  // Adapters of optional services are loaded only when configured (the AWS SDK and ioredis weigh
  // ~10 MB of RSS in a process that does not use them).
  if (config.s3) quietAwsNodeWarning(log);
  const blobs: BlobStore =
    overrides.blobs ??
    (config.s3
      ? new (await import('./adapters/blob/s3-blob-store.js')).S3BlobStore(config.s3)
      : new FsBlobStore(path.join(config.dataDir, 'files')));
  const rateLimiter: RateLimiter =
    overrides.rateLimiter ??
    (config.redisUrl
      ? new (await import('./adapters/rate-limit/redis-rate-limiter.js')).RedisRateLimiter(config.redisUrl, {
          clock,
          log,
          commandTimeoutMs: config.limits.redisTimeoutMs,
        })
      : new MemoryRateLimiter(clock));
  // RENDER_WORKERS=0: the engine on the event loop; otherwise a pool of worker processes (started on first use).
  const engine =
    overrides.engine ??
    (config.limits.renderWorkers === 0
      ? // loaded only here: with the pool, the server process never loads pdf-lib and fontkit (~50 MB RSS)
        (await import('./adapters/engine/in-process-engine.js')).inProcessEngine(config.limits, config.caches)
      : createPoolEngine({
          size: config.limits.renderWorkers,
          timeoutMs: config.limits.renderTimeoutMs,
          maxMemoryMb: config.limits.renderMemoryMb,
          semiSpaceMb: config.limits.renderSemiSpaceMb,
          maxWaitMs: config.limits.renderQueueWaitMs,
          limits: config.limits,
          templateCache: { maxEntries: config.caches.templateEntries, maxBytes: config.caches.templateMb * MB },
          baseFilesMb: config.caches.baseFilesMb,
          fontShapeEntries: config.caches.fontShapeEntries,
          onWorkerLost: (e) => log.warn(e, 'render worker stopped'),
        }));
  const signingKey = overrides.signingKey ?? loadSigningKey(config);
  const webhookSender =
    overrides.webhookSender ??
    new HttpWebhookSender({ allowPrivate: config.webhooks.allowPrivate, timeoutMs: config.webhooks.timeoutMs });
  const metrics = overrides.metrics ?? new PromMetrics(engine);
  const jobSignal = overrides.jobs ?? createJobSignal();
  // Off (the default): no wrapper anywhere, the hot path is what it was. On: loaded only then.
  const tracer: Tracer =
    overrides.tracer ??
    (config.tracing.enabled
      ? new (await import('./adapters/tracing/otel-tracer.js')).OtelTracer({
          serviceName: config.tracing.serviceName,
          exporter: options.spanExporter,
          onCloseError: (err) => log.warn({ err }, 'could not send the last traces'),
        })
      : noopTracer);
  // Each account's share of this process's event loop (issue 27); MAIN_SHARE_SLOTS=0: none.
  const mainShare =
    config.limits.mainShareSlots > 0
      ? new MainShare({
          slots: config.limits.mainShareSlots,
          maxWaitMs: config.limits.mainShareWaitMs,
          now: () => performance.now(),
          busy: loopBusy(config.limits.mainShareBusyPercent / 100),
          onWaited: (outcome, ms) => metrics.admissionWait(outcome, ms / 1000),
        })
      : undefined;
  // Each account's budget of refused and preview requests (issue 27); UNPAID_WORK_PER_MINUTE=0: none.
  const unpaidWork =
    config.limits.unpaidWorkPerMinute > 0
      ? new UnpaidWorkBudget({
          perMinute: config.limits.unpaidWorkPerMinute,
          burst: config.limits.unpaidWorkBurst,
          maxWaitMs: config.limits.unpaidWorkWaitMs,
          now: () => performance.now(),
          onHeld: (outcome, ms) => metrics.unpaidWorkHeld(outcome, ms / 1000),
          onCharged: (units) => metrics.unpaidWork(units),
        })
      : undefined;
  const admission: RequestAdmission =
    overrides.admission ??
    (unpaidWork && mainShare
      ? new ChainedAdmission(unpaidWork, mainShare)
      : (unpaidWork ?? mainShare ?? openAdmission));
  // A request's time in a worker pool is the pool's to share, not the loop's; with RENDER_WORKERS=0 the
  // engine runs on the loop, and its time is the loop's.
  const measured =
    mainShare && !overrides.admission && config.limits.renderWorkers > 0
      ? meteredEngine(engine, (a) => mainShare.away(a))
      : engine;
  const deps: Deps = {
    config,
    db: tracer.enabled
      ? dbHandle.db.withPlugin(dbTracingPlugin(tracer, dbHandle.kind === 'postgres' ? 'postgresql' : 'sqlite'))
      : dbHandle.db,
    dbKind: dbHandle.kind,
    blobs: tracer.enabled ? tracedBlobStore(blobs, tracer) : blobs,
    clock,
    plans,
    engine: tracer.enabled ? tracedEngine(measured, tracer) : measured,
    rateLimiter,
    signingKey,
    log,
    metrics,
    caches: overrides.caches ?? createCaches(config.caches),
    webhookSender,
    instanceId: heartbeat.id,
    jobs: jobSignal,
    tracer,
    admission,
    operatorCertificate,
  };
  // Webhook deliveries are sent by every instance (the claim keeps their attempts apart). Signatures carry
  // the real time (receivers check it against theirs) while scheduling follows the injected clock.
  const deliveries = createDeliveryWorker({
    ...deps,
    wallClock: systemClock,
    random: Math.random,
  });
  // Async renders and batch items: claimed from the database, so they survive restarts and move to a
  // live instance when theirs dies.
  const runner = startJobRunner(deps, {
    concurrency: config.limits.renderJobConcurrency,
    pollMs: config.limits.jobPollMs,
    leaseMs: staleAfterMs(deps),
  });
  jobSignal.listen?.(runner.wake);
  const stopHousekeeping = options.housekeeping ? startSweeper(deps) : async () => {};
  return {
    ...deps,
    async close() {
      // First: the requests are over (the app closed before), and the flush's socket keeps the process up
      // until the last spans are sent.
      await tracer.close();
      await stopHousekeeping();
      await deliveries.stop();
      // Stop claiming; closing the engine cuts the jobs in flight short, and they are given back.
      const stopped = runner.stop();
      await engine.close?.();
      await stopped;
      await rateLimiter.close?.();
      await blobs.close?.();
      await heartbeat.stop();
      dbClock?.stop();
      await dbHandle.close();
    },
  };
}

const MB = 1024 * 1024;
/** How often the clock is read again from the database. */
const DB_CLOCK_SYNC_MS = 10_000;
/** Entry cap of the template file cache: its budget is in bytes, the cap only bounds bookkeeping. */
const TEMPLATE_FILES_MAX = 512;
/** Signing certificates kept parsed (an account keeps at most 10). */
const SIGNERS_MAX = 64;
/** Shaped words kept for visible signatures' names (a few accounts' certificates). */
const SIGNATURE_SHAPES = 256;

function createCaches(sizes: CacheSizes): Caches {
  let fonts: Promise<FontLibrary> | undefined;
  return {
    templateFiles: new Lru(TEMPLATE_FILES_MAX, sizes.templateFilesMb * MB, (b) => b.byteLength),
    analyses: new Lru(sizes.analysisEntries),
    signers: new Lru(SIGNERS_MAX),
    baseDigests: new WeakMap(),
    // loaded with the first signature: a server that never signs never loads pdf-lib (docs/performance.md, Session 10)
    fonts: () =>
      (fonts ??= import('./pdf/fonts/font-library.js').then(
        ({ FontLibrary }) => new FontLibrary({ shapeCacheEntries: SIGNATURE_SHAPES }),
      )),
  };
}

/**
 * SIGNING_SECRET when set (required for several instances behind one load balancer); otherwise a random
 * key created once and kept in DATA_DIR, so links stay valid across restarts of a single instance.
 */
function loadSigningKey(config: Config): Buffer {
  if (config.signingSecret) return Buffer.from(config.signingSecret, 'utf8');
  const file = path.join(config.dataDir, 'signing.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex'), { mode: 0o600 });
  return key;
}

/** Days before its end when the operator's certificate is announced at start-up, so it is renewed in time. */
const EXPIRY_NOTICE_DAYS = 30;

/** Which certificate signs for accounts without their own (never its password), and a warning near its end. */
function announce(log: Logger, cert: OperatorCertificate, now: Date): void {
  const what = { subject: cert.subject, fingerprint: cert.fingerprint, notAfter: cert.notAfter.toISOString() };
  const days = (cert.notAfter.getTime() - now.getTime()) / 86_400_000;
  if (days <= EXPIRY_NOTICE_DAYS)
    log.warn(
      what,
      `the operator's signing certificate (SIGNING_P12_FILE) expires in ${Math.floor(days)} days: renew it`,
    );
  else log.info(what, "the operator's signing certificate (SIGNING_P12_FILE) signs for accounts without their own");
}

/**
 * The AWS SDK prints a multi-line NodeDeprecationWarning on every start under Node 20 (past its end of
 * life; SDK releases after January 2027 need Node 22). Said once, as one log line, instead.
 */
function quietAwsNodeWarning(log: Logger): void {
  if (nodeMajor() >= 22 || process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED) return;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  log.warn(
    { node: process.versions.node },
    'Node 20 is past its end of life: run formcast on Node 22 or 24 (AWS SDK releases after January 2027 need it)',
  );
}
