import os from 'node:os';
import path from 'node:path';
import { RENDER_SEMI_SPACE_MB } from './workers/worker-flags.js';

// Environment -> typed Config. Every problem is collected and reported at once, naming the variable,
// so an operator fixes a bad deployment in one round.

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** sqlite file path or postgres:// URL */
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  publicUrl: string;
  plansFile?: string;
  logLevel: LogLevel;
  /** HMAC secret for download links; generated and kept in DATA_DIR when not given. */
  signingSecret?: string;
  limits: Limits;
  caches: CacheSizes;
  /** `timeoutMs`: deadline of one storage call, retries included (more for large bodies). */
  s3?: { bucket: string; endpoint?: string; region: string; forcePathStyle: boolean; timeoutMs: number };
  redisUrl?: string;
  /** when set, GET /metrics requires `Authorization: Bearer <token>` */
  metricsToken?: string;
  /** keep plain web links (/URI actions) in rendered PDFs; every other active content is always stripped */
  outputUriLinks: boolean;
  /** Fastify's trustProxy: which proxies' X-Forwarded-For to believe for the client address */
  trustProxy: boolean | number | string;
  webhooks: WebhookConfig;
  /** a render's locale and time zone when neither the request nor its template gives one */
  renderDefaults: RenderDefaults;
  /** OTEL_ENABLED: OpenTelemetry traces (off by default); the exporter reads the standard OTEL_EXPORTER_OTLP_* variables */
  tracing: TracingConfig;
  /** TSA_URL / TSA_TIMEOUT_MS: the RFC 3161 time-stamp authority that makes signatures PAdES B-T */
  timestamp: TimestampConfig;
  /** SIGNING_P12_FILE / SIGNING_P12_PASSWORD: the operator's certificate, `options.sign: true` for every account without its own */
  operatorCertificate?: OperatorCertificateConfig;
}

/** Read and checked at start-up (modules/signing/operator-certificate.ts); the password is never logged. */
export interface OperatorCertificateConfig {
  /** a PKCS#12 (.p12 / .pfx) file */
  file: string;
  /** '' when SIGNING_P12_PASSWORD is not set (a PKCS#12 exported without a password) */
  password: string;
}

export interface TimestampConfig {
  /** absent: signatures are B-B (no time-stamp token) */
  url?: string;
  /** deadline of one time-stamp request, connect to last byte, ms */
  timeoutMs: number;
}

export interface TracingConfig {
  enabled: boolean;
  /** OTEL_SERVICE_NAME, the traces' service.name */
  serviceName: string;
}

/** DEFAULT_LOCALE / DEFAULT_TIMEZONE: the reference's fr-FR / Europe/Paris unless the operator says otherwise. */
export interface RenderDefaults {
  locale: string;
  timezone: string;
}

/** A BCP 47 tag Intl has data for (as render options are checked). */
function knownLocale(tag: string): boolean {
  try {
    return Intl.DateTimeFormat.supportedLocalesOf([tag]).length > 0;
  } catch {
    return false;
  }
}

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Webhook delivery (see modules/webhooks and docs/decisions.md). */
export interface WebhookConfig {
  /** allow http: and loopback/private targets (tests, on-premise receivers); never on a shared service */
  allowPrivate: boolean;
  /** budget of one attempt: connect, send, response head and the bounded body read, ms */
  timeoutMs: number;
  /** how often the delivery worker looks for due deliveries, ms */
  pollMs: number;
  /** attempts in flight at once per instance */
  concurrency: number;
  /** attempts in flight at once to one endpoint, and for one account (fair shares of `concurrency`) */
  endpointConcurrency: number;
  accountConcurrency: number;
  /** an endpoint whose attempts have all failed for this long is disabled, hours */
  disableAfterHours: number;
  /** events and finished deliveries older than this are deleted, days */
  retentionDays: number;
}

/** Every limit is a named value with a safe default (design rule 9). */
export interface Limits {
  /** Download link lifetime, seconds (contract: 900). */
  downloadUrlSeconds: number;
  /** Max JSON body for API requests (render data), bytes. */
  jsonBodyBytes: number;
  /** Max pages / fields accepted in a template. */
  maxPages: number;
  maxFields: number;
  /** Wall-clock budget of one render or analysis, ms. */
  renderTimeoutMs: number;
  /** Render worker processes; 0 runs the engine on the event loop (default: one per core). */
  renderWorkers: number;
  /** Longest expected wait for a render worker before a render is refused with 503 (ms). */
  renderQueueWaitMs: number;
  /** Failed authentications one client address may make per minute before it gets 429 (no key lookup). */
  authFailuresPerMinute: number;
  /** Resident memory budget of one render worker process, MiB. */
  renderMemoryMb: number;
  /** Young-generation semi-space of each render worker, MiB. */
  renderSemiSpaceMb: number;
  /** Retention sweeper period, ms. */
  sweepIntervalMs: number;
  /**
   * How long accepted async work (an async render, a batch item, a batch's combined file) keeps being
   * retried through server faults (storage, database, busy engine) before it is failed, hours.
   */
  jobRetryHours: number;
  /**
   * Requests in flight the active accounts share equally while the main process is busy; an account over
   * an equal share of recent main-process time holds at most its part (adapters/admission/main-share.ts).
   * 0: no shares.
   */
  mainShareSlots: number;
  /** Event-loop utilisation, percent, from which the main process counts as busy (0: always). */
  mainShareBusyPercent: number;
  /** Longest a request waits for its account's share before 503, ms. */
  mainShareWaitMs: number;
  /**
   * Each account's budget of unpaid work (refused uploads, renders and previews; previews), units per
   * minute (adapters/admission/unpaid-work.ts). 0: no budget.
   */
  unpaidWorkPerMinute: number;
  /** Units of unpaid work an account may spend at once. */
  unpaidWorkBurst: number;
  /** Longest a request of an account past its budget is held before 429, ms. */
  unpaidWorkWaitMs: number;
  /** Longest a request body may take to arrive, ms. */
  bodyTimeoutMs: number;
  /** Least average throughput of a request body over each `bodyRateWindowMs`, bytes per second. */
  bodyMinBytesPerSecond: number;
  bodyRateWindowMs: number;
  /** Bytes of a request body still discarded after an early answer (413, 401, 408) before the cut. */
  bodyDrainBytes: number;
  /** Time a request body may keep arriving after an early answer before the cut, ms. */
  bodyDrainMs: number;
  /** Longest a request waits for a connected Redis (rate limits) before failing open, ms. */
  redisTimeoutMs: number;
  /** Items a POST /renders/batch may hold. */
  maxBatchItems: number;
  /** Fields one PATCH /templates/:id/fields may change. */
  maxFieldChanges: number;
  /** Async renders and batch items one instance runs at once (background priority in the pool). */
  renderJobConcurrency: number;
  /** How often an instance looks for due jobs it was not told about (other instances', retries), ms. */
  jobPollMs: number;
}

/** Sizes of the in-memory caches, built by the composition roots (src/bootstrap.ts, the engines). */
export interface CacheSizes {
  /** Prepared templates kept by each engine (every render worker, or the in-process engine). */
  templateEntries: number;
  /** Their memory budget per engine, MiB (default: a quarter of RENDER_MEMORY_MB). */
  templateMb: number;
  /** Shaped words (Arabic, Indic, Thai, ...), and planned non-Latin values, each engine keeps across renders. */
  fontShapeEntries: number;
  /** Template PDF files kept by the server (saves a blob-store read per render), MiB. */
  templateFilesMb: number;
  /** Base files of prepared templates the server keeps from the render workers (they then send only the
   * incremental update of each render), MiB. */
  baseFilesMb: number;
  /** Parsed template analyses kept by the server. */
  analysisEntries: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return def;
    }
    return n;
  };
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };

  const port = int('PORT', 3000, 0, 65535);
  const host = str('HOST') ?? '0.0.0.0';
  const dataDir = path.resolve(str('DATA_DIR') ?? './data');

  let database: Config['database'] = { kind: 'sqlite', file: path.join(dataDir, 'formcast.sqlite') };
  const dbUrl = str('DATABASE_URL');
  if (dbUrl) {
    if (/^postgres(ql)?:\/\//.test(dbUrl)) database = { kind: 'postgres', url: dbUrl };
    else if (dbUrl.startsWith('sqlite:'))
      database = { kind: 'sqlite', file: path.resolve(dbUrl.slice('sqlite:'.length)) };
    else problems.push(`DATABASE_URL must start with postgres://, postgresql:// or sqlite: (got "${dbUrl}")`);
  }

  let publicUrl = str('PUBLIC_URL') ?? `http://${host === '0.0.0.0' || host === '::' ? 'localhost' : host}:${port}`;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
    publicUrl = publicUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`PUBLIC_URL must be an http(s) URL (got "${publicUrl}")`);
  }

  const logLevel = (str('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${logLevel}")`);

  const signingSecret = str('SIGNING_SECRET');
  if (signingSecret !== undefined && signingSecret.length < 32)
    problems.push('SIGNING_SECRET must be at least 32 characters');

  const limits: Limits = {
    downloadUrlSeconds: int('DOWNLOAD_URL_SECONDS', 900, 1, 7 * 24 * 3600),
    jsonBodyBytes: int('MAX_JSON_BODY_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
    maxPages: int('MAX_TEMPLATE_PAGES', 2000, 1, 100_000),
    maxFields: int('MAX_TEMPLATE_FIELDS', 5000, 1, 100_000),
    renderTimeoutMs: int('RENDER_TIMEOUT_MS', 30_000, 100, 600_000),
    renderWorkers: int('RENDER_WORKERS', Math.max(1, os.availableParallelism()), 0, 256),
    // An idle worker is ~135 MB RSS; corpus renders (CJK font embedding included) peak at ~190 MB, ~230 MB
    // with the 16 MB young generation and several large forms prepared (README: RENDER_SEMI_SPACE_MB).
    renderMemoryMb: int('RENDER_MEMORY_MB', 512, 192, 64 * 1024),
    renderSemiSpaceMb: int('RENDER_SEMI_SPACE_MB', RENDER_SEMI_SPACE_MB, 1, 256),
    authFailuresPerMinute: int('AUTH_FAILURES_PER_MINUTE', 30, 1, 1_000_000),
    renderQueueWaitMs: int('RENDER_QUEUE_WAIT_MS', 10_000, 0, 600_000),
    sweepIntervalMs: int('SWEEP_INTERVAL_MS', 60 * 60 * 1000, 1000, 24 * 3600 * 1000),
    // 10 min: the largest plan upload (Business, 50 MB) takes ~7 min at 1 Mbit/s. The throughput
    // floor (1 KiB/s over 30 s windows) is far below any working link but cuts trickles and stalls.
    bodyTimeoutMs: int('BODY_TIMEOUT_MS', 10 * 60 * 1000, 1000, 24 * 3600 * 1000),
    bodyMinBytesPerSecond: int('BODY_MIN_BYTES_PER_SECOND', 1024, 0, 1024 * 1024 * 1024),
    bodyRateWindowMs: int('BODY_RATE_WINDOW_MS', 30_000, 100, 3600 * 1000),
    // After an early answer: enough for a client's in-flight bytes (socket buffers are a few MB) to
    // land while it reads our answer, little enough that a client pushing on is cut quickly.
    bodyDrainBytes: int('BODY_DRAIN_BYTES', 16 * 1024 * 1024, 0, 1024 * 1024 * 1024),
    bodyDrainMs: int('BODY_DRAIN_MS', 5_000, 0, 600_000),
    // Slow-but-alive Redis must keep limiting (a loaded machine answers late, not never).
    redisTimeoutMs: int('REDIS_TIMEOUT_MS', 2_000, 100, 60_000),
    maxBatchItems: int('MAX_BATCH_ITEMS', 1000, 1, 100_000),
    maxFieldChanges: int('MAX_FIELD_CHANGES', 1000, 1, 100_000),
    // Two per worker: one rendering, one doing its I/O (template, storage, records) meanwhile. Background
    // jobs queue behind interactive ones in the pool, so a request waits at most for the jobs running.
    renderJobConcurrency: int('RENDER_JOB_CONCURRENCY', 0, 0, 1024),
    jobPollMs: int('JOB_POLL_MS', 1000, 50, 600_000),
    jobRetryHours: int('JOB_RETRY_HOURS', 24, 1, 24 * 30),
    // Four: two places each for two accounts, so a client at concurrency 2 is never held by the rule.
    mainShareSlots: int('MAIN_SHARE_SLOTS', 4, 0, 10_000),
    mainShareBusyPercent: int('MAIN_SHARE_BUSY_PERCENT', 90, 0, 100),
    // as long as a render may wait for a worker (RENDER_QUEUE_WAIT_MS): one wait budget per request
    mainShareWaitMs: int('MAIN_SHARE_WAIT_MS', 10_000, 1, 600_000),
    // 5 a second sustained, 20 at once: the dashboard previews at most every 400 ms while someone types,
    // so a person never meets it; a loop of refused work is held to it (decisions.md "unpaid work")
    unpaidWorkPerMinute: int('UNPAID_WORK_PER_MINUTE', 300, 0, 1_000_000),
    unpaidWorkBurst: int('UNPAID_WORK_BURST', 20, 1, 1_000_000),
    unpaidWorkWaitMs: int('UNPAID_WORK_WAIT_MS', 10_000, 1, 600_000),
  };
  if (limits.renderJobConcurrency === 0) limits.renderJobConcurrency = 2 * Math.max(1, limits.renderWorkers);

  const caches: CacheSizes = {
    templateEntries: int('TEMPLATE_CACHE_ENTRIES', 32, 0, 100_000),
    // A quarter of a worker's budget: prepared templates stay well inside it, renders keep the rest.
    templateMb: int('TEMPLATE_CACHE_MB', Math.floor(limits.renderMemoryMb / 4), 0, 64 * 1024),
    // A few hundred bytes per word; 4096 words cover the vocabulary of many forms' values.
    fontShapeEntries: int('FONT_SHAPE_CACHE_ENTRIES', 4096, 0, 1_000_000),
    // Small on purpose: the server process stays within ~150 MB (see docs/performance.md, "Server memory").
    templateFilesMb: int('TEMPLATE_FILE_CACHE_MB', 16, 0, 64 * 1024),
    baseFilesMb: int('BASE_FILE_CACHE_MB', 16, 0, 64 * 1024),
    analysisEntries: int('ANALYSIS_CACHE_ENTRIES', 256, 0, 100_000),
  };

  let s3: Config['s3'];
  const bucket = str('S3_BUCKET');
  if (bucket) {
    s3 = {
      bucket,
      endpoint: str('S3_ENDPOINT'),
      region: str('S3_REGION') ?? str('AWS_REGION') ?? 'us-east-1',
      forcePathStyle: (str('S3_FORCE_PATH_STYLE') ?? (str('S3_ENDPOINT') ? 'true' : 'false')) === 'true',
      timeoutMs: int('S3_TIMEOUT_MS', 10_000, 100, 600_000),
    };
  }
  const redisUrl = str('REDIS_URL');
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    problems.push(`REDIS_URL must start with redis:// or rediss:// (got "${redisUrl}")`);

  const plansFile = str('PLANS_FILE');
  const proxy = str('TRUST_PROXY') ?? 'false';
  // true (any proxy), a hop count, or a comma-separated list of proxy addresses / CIDR ranges
  const trustProxy = proxy === 'true' ? true : proxy === 'false' ? false : /^\d+$/.test(proxy) ? Number(proxy) : proxy;
  const uriLinks = str('OUTPUT_URI_LINKS') ?? 'false';
  if (uriLinks !== 'true' && uriLinks !== 'false')
    problems.push(`OUTPUT_URI_LINKS must be true or false (got "${uriLinks}")`);
  const allowPrivate = str('WEBHOOK_ALLOW_PRIVATE') ?? 'false';
  if (allowPrivate !== 'true' && allowPrivate !== 'false')
    problems.push(`WEBHOOK_ALLOW_PRIVATE must be true or false (got "${allowPrivate}")`);
  const webhooks: WebhookConfig = {
    allowPrivate: allowPrivate === 'true',
    timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    pollMs: int('WEBHOOK_POLL_MS', 1_000, 10, 60_000),
    concurrency: int('WEBHOOK_CONCURRENCY', 8, 1, 256),
    endpointConcurrency: int('WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1, 256),
    accountConcurrency: int('WEBHOOK_ACCOUNT_CONCURRENCY', 4, 1, 256),
    disableAfterHours: int('WEBHOOK_DISABLE_AFTER_HOURS', 120, 1, 24 * 365),
    // longer than the retry schedule (about 3 days), so a delivery is never purged while it may be retried
    retentionDays: int('EVENT_RETENTION_DAYS', 30, 4, 3650),
  };
  const renderDefaults = {
    locale: str('DEFAULT_LOCALE') ?? 'fr-FR',
    timezone: str('DEFAULT_TIMEZONE') ?? 'Europe/Paris',
  };
  if (!knownLocale(renderDefaults.locale))
    problems.push(`DEFAULT_LOCALE must be a BCP 47 locale such as fr-FR or en-US (got "${renderDefaults.locale}")`);
  if (!knownTimeZone(renderDefaults.timezone))
    problems.push(
      `DEFAULT_TIMEZONE must be an IANA time zone such as Europe/Paris or UTC (got "${renderDefaults.timezone}")`,
    );
  const otelEnabled = str('OTEL_ENABLED') ?? 'false';
  if (otelEnabled !== 'true' && otelEnabled !== 'false')
    problems.push(`OTEL_ENABLED must be true or false (got "${otelEnabled}")`);
  const tsaUrl = str('TSA_URL');
  if (tsaUrl !== undefined && !/^https?:\/\/[^/]/i.test(tsaUrl))
    problems.push(`TSA_URL must be an http(s) URL (got "${tsaUrl}")`);
  const timestamp: TimestampConfig = { url: tsaUrl, timeoutMs: int('TSA_TIMEOUT_MS', 10_000, 100, 120_000) };
  const p12File = str('SIGNING_P12_FILE');
  // the password as given: spaces may belong to it
  const p12Password = env.SIGNING_P12_PASSWORD;
  if (p12File === undefined && p12Password !== undefined && p12Password !== '')
    problems.push('SIGNING_P12_PASSWORD is set but SIGNING_P12_FILE is not: name the PKCS#12 file it opens');
  const operatorCertificate = p12File ? { file: path.resolve(p12File), password: p12Password ?? '' } : undefined;
  const tracing = { enabled: otelEnabled === 'true', serviceName: str('OTEL_SERVICE_NAME') ?? 'formcast' };
  if (problems.length) throw new ConfigError(problems);
  const metricsToken = str('METRICS_TOKEN');
  return {
    port,
    host,
    dataDir,
    database,
    publicUrl,
    plansFile,
    logLevel,
    signingSecret,
    limits,
    caches,
    s3,
    redisUrl,
    metricsToken,
    outputUriLinks: uriLinks === 'true',
    trustProxy,
    webhooks,
    renderDefaults,
    tracing,
    timestamp,
    operatorCertificate,
  };
}
