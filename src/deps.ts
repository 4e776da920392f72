import type { Hash } from 'node:crypto';
import type { Config } from './config.js';
import type { Db, DbKind } from './adapters/db/database.js';
import type { BlobStore } from './ports/blob-store.js';
import type { Clock } from './ports/clock.js';
import type { Plans } from './plans.js';
import type { RenderEngine } from './ports/render-engine.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import type { Logger } from 'pino';
import type { Metrics } from './ports/metrics.js';
import type { Lru } from './lib/lru.js';
import type { FontLibrary } from './pdf/fonts/font-library.js';
import type { TemplateAnalysis } from './pdf/types.js';
import type { JobSignal } from './ports/job-signal.js';
import type { Tracer } from './ports/tracer.js';

/**
 * The server's in-memory caches, sized from Config (CacheSizes). Both are keyed by blob key: a key
 * names one immutable template file version, so an entry never goes stale.
 */
export interface Caches {
  /** template PDFs: saves a blob-store round trip (an S3 GET) on every render */
  templateFiles: Lru<string, Uint8Array>;
  /** parsed template analyses: saves a JSON.parse of the stored analysis on every render */
  analyses: Lru<string, TemplateAnalysis>;
  /**
   * signers by certificate id and fingerprint: the sealed key opened and the chain parsed once (about
   * 1.5 ms a signature otherwise). A certificate row never changes; a deleted one is looked up first.
   */
  signers: Lru<string, DigestSigner>;
  /**
   * the bundled fonts visible signatures draw a signer's name in any script with (parsed once, when first
   * needed); a function so the server loads the PDF engine's code (pdf-lib, ~30 MB RSS) only when it signs
   */
  fonts: () => Promise<FontLibrary>;
  /**
   * SHA-256 states after a pool engine's base files (the shared first part of every render of a template
   * version), by the base's object: each render hashes only its own part (seal-output.ts sha256Of). Weak:
   * an entry goes with the base the engine dropped.
   */
  baseDigests: WeakMap<Uint8Array, Hash>;
}

/** What modules/signing/cms-signature.ts makes of a certificate: a CMS over a SHA-256 digest. */
export interface DigestSigner {
  /** `stamp`: a time-stamp token over the signature value (PAdES B-T) */
  signDigest(digest: Buffer, stamp?: (signatureValue: Uint8Array) => Promise<unknown>): Promise<Buffer>;
  /** bytes of its CMS without a time-stamp token, at most */
  readonly maxCmsBytes: number;
}
import type { WebhookSender } from './ports/webhook-sender.js';
import type { RequestAdmission } from './ports/request-admission.js';

/** What a signing certificate says of itself, as listings show it. */
export interface CertificateFacts {
  subject: string;
  issuer: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the signer certificate's DER, hex */
  fingerprint: string;
}

/**
 * The operator's signing certificate (SIGNING_P12_FILE), read and checked once at start-up and offered to
 * every account: `options.sign: true` of an account without a default certificate of its own. Its key
 * lives only in the operator's file and in this process, never in the database.
 */
export interface OperatorCertificate extends CertificateFacts {
  /** when this process loaded it (the listing's `createdAt`) */
  loadedAt: Date;
  signer: DigestSigner;
}

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
  caches: Caches;
  /** sends webhook attempts and judges webhook URLs (SSRF policy) */
  webhookSender: WebhookSender;
  /** this server process in the `instances` liveness table (see adapters/db/instances.ts) */
  instanceId: string;
  /** wakes this instance's job runner when an async render or batch is accepted */
  jobs: JobSignal;
  /** spans of requests and of their engine, storage and database steps; a no-op unless OTEL_ENABLED */
  tracer: Tracer;
  /** each account's share of this process's event loop: API requests wait for it before their body is read */
  admission: RequestAdmission;
  /** absent: no operator certificate configured; an account signs only with its own */
  operatorCertificate?: OperatorCertificate;
}
