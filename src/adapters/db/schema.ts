import type { Generated } from 'kysely';

// Table shapes as stored. Timestamps are ISO 8601 UTC strings (same text in SQLite and PostgreSQL, and
// they sort correctly as text); booleans are 0/1 integers; JSON is text.

export interface AccountsTable {
  id: string;
  name: string;
  plan: string;
  created_at: string;
  /** render defaults of the account's renders (null: the operator's) */
  default_locale?: string | null;
  default_timezone?: string | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  /** first characters of the key, shown in lists so a user can tell keys apart */
  prefix: string;
  /** sha256 of the whole key, hex */
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface TemplatesTable {
  id: string;
  account_id: string;
  name: string;
  description: string;
  file_name: string;
  file_size: number;
  field_count: number;
  page_count: number;
  is_frozen: number;
  version: number;
  blob_key: string;
  /** TemplateAnalysis as JSON */
  analysis: string;
  /** the team's FieldSettings (keys, defaults, rules) by PDF field name, as JSON; '{}' when none */
  field_settings: string;
  /** the template's render locale and time zone when a request gives none; null: the operator's */
  default_locale?: string | null;
  default_timezone?: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * One version of a template, from its first change on (a template never changed has no rows): what
 * changed, the render keys it had, and for a file replacement how the new fields map to the old.
 */
export interface TemplateVersionsTable {
  template_id: string;
  account_id: string;
  version: number;
  /** earlier (the version a template had at its first recorded change) | fields | file */
  change: string;
  /** the version's fields as JSON: [{ name, originalName }] */
  fields: string;
  /** JSON: the fields a PATCH changed, or a file replacement's mapping report; NULL for `earlier` */
  report: string | null;
  created_at: string;
}

export interface RendersTable {
  id: string;
  account_id: string;
  template_id: string;
  template_name: string;
  template_version: number;
  /** pending (reserved, in progress) | completed | failed */
  status: string;
  file_size: number;
  duration_ms: number;
  warnings: string;
  error_code: string | null;
  error_message: string | null;
  blob_key: string | null;
  /** month the render counts in, YYYY-MM (UTC) */
  month: string;
  created_at: string;
  expires_at: string;
  /** set when deleted by the user or swept by retention: the row stays as a quota tombstone */
  deleted_at: string | null;
  /** instance (server process) that reserved it; see instances.ts. NULL for older rows and for async renders (see render_jobs). */
  owner: string | null;
  /** the batch it is an item of, and its position there (0-based); NULL for single renders */
  batch_id: string | null;
  batch_index: number | null;
  /** 1/0: the output was flattened (a combined file merges it as pages); NULL for older rows */
  flattened: number | null;
  /** hex SHA-256 of the completed file (POST /renders/verify); NULL while pending, failed, or for older rows */
  sha256: string | null;
  /** 1: the file is password-protected (options.protect); the passwords are never stored */
  protected: number;
  /** the signing certificate's id when the file is signed (options.sign), else NULL */
  signed_with: string | null;
}

/** An account's signing certificate (PKCS#12 upload): chain as PEM, key sealed (webhooks/secret-box.ts). */
export interface SigningCertificatesTable {
  id: string;
  account_id: string;
  name: string;
  subject: string;
  issuer: string;
  serial_number: string;
  not_before: string;
  not_after: string;
  /** hex SHA-256 of the signer certificate's DER */
  fingerprint: string;
  /** the signer certificate first, then the rest of the chain, PEM */
  certificates: string;
  /** the private key as PKCS#8 PEM, sealed (AES-256-GCM) */
  private_key: string;
  /** 1: the one options.sign: true uses */
  is_default: number;
  created_at: string;
}

/** An accepted async render or batch item not yet finished: its request, durably (see modules/render-jobs). */
export interface RenderJobsTable {
  render_id: string;
  account_id: string;
  batch_id: string | null;
  /** 0 = async single render, 1 = batch item: lower runs first */
  priority: number;
  /** the render request `{ templateId, data, options }` as JSON */
  input: string;
  /** claims so far (a claim by an instance that died counts) */
  attempts: number;
  /** instance running it and until when its claim holds; NULL when free */
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** not claimed before this time (retry backoff) */
  run_after: string;
  created_at: string;
  /** W3C traceparent of the request that enqueued it (0011); null or absent without tracing */
  traceparent?: string | null;
}

export interface RenderBatchesTable {
  id: string;
  account_id: string;
  /** pending (items running, or the combined file being built) | completed */
  status: string;
  item_count: number;
  /** 0/1: build one PDF of every completed item, in order */
  combine: number;
  combined_blob_key: string | null;
  /** why the combined file could not be built, when it could not */
  combine_error: string | null;
  /** the signing certificate the combined file is signed with (batch `sign`), else null */
  signed_with: string | null;
  /** instance finishing the batch (combined file, event), and until when */
  lease_owner: string | null;
  lease_expires_at: string | null;
  created_at: string;
  completed_at: string | null;
  expires_at: string;
  deleted_at: string | null;
  /** W3C traceparent of the request that created it (0011); null or absent without tracing */
  traceparent?: string | null;
}

export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: string;
}

export interface IdempotencyTable {
  account_id: string;
  key: string;
  route: string;
  body_hash: string;
  status_code: number | null;
  response: string | null;
  created_at: string;
  /** instance running the first request while it is in progress; NULL for older rows */
  owner: string | null;
}

export interface InstancesTable {
  id: string;
  /** the process is alive until then; it renews the row well before */
  expires_at: string;
}

/** The outbox: every event, written in the transaction of the change that causes it (see modules/events). */
export interface EventsTable {
  id: string;
  account_id: string;
  /** e.g. render.completed, template.created (modules/events/event-types.ts) */
  type: string;
  /** the event's `data` object as JSON, same shapes as the API */
  data: string;
  created_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  /** https URL (http too with WEBHOOK_ALLOW_PRIVATE), checked when saved and again when connecting */
  url: string;
  description: string;
  /** JSON array of event types, or ["*"] for all */
  events: string;
  enabled: number;
  /** why the service disabled it (e.g. failing for days); NULL when enabled or disabled by the user */
  disabled_reason: string | null;
  /** Standard Webhooks secret (whsec_<base64>), sealed with AES-256-GCM (modules/webhooks/secret-box.ts) */
  secret: string;
  /** the secret before the last rotation, sealed, still signing until previous_secret_expires_at */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** start of the current run of failed attempts; NULL after a success */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  account_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** pending (scheduled or in flight) | succeeded | failed (gave up, or the endpoint was disabled) */
  status: string;
  attempts: number;
  /** when the next attempt is due; while an attempt is in flight, when its lease ends. NULL when final. */
  next_attempt_at: string | null;
  /** token of the attempt in flight (its claim); NULL when none */
  claimed_by: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  /** JSON array of the attempts made: { at, statusCode, error, durationMs } */
  attempt_log: string;
  created_at: string;
  completed_at: string | null;
  /** W3C traceparent of the work that published its event (0011); null or absent without tracing */
  traceparent?: string | null;
}

export interface WebhookEndpointLogTable {
  id: string;
  endpoint_id: string;
  account_id: string;
  /** created | updated | secret.rotated | disabled | enabled */
  type: string;
  message: string;
  created_at: string;
}

export interface UsageThresholdsTable {
  account_id: string;
  month: string;
  /** percent of the month's render quota: 80 or 100 */
  threshold: number;
  created_at: string;
}

/**
 * Renders that count against an account's quota in a month (pending or completed, deleted or not), kept
 * by modules/renders/render-records.ts in the transaction of every change of such a render.
 */
export interface RenderUsageTable {
  account_id: string;
  /** YYYY-MM, UTC */
  month: string;
  renders: number;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  templates: TemplatesTable;
  template_versions: TemplateVersionsTable;
  renders: RendersTable;
  signing_certificates: SigningCertificatesTable;
  leases: LeasesTable;
  idempotency_keys: IdempotencyTable;
  instances: InstancesTable;
  events: EventsTable;
  render_jobs: RenderJobsTable;
  render_batches: RenderBatchesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_endpoint_log: WebhookEndpointLogTable;
  usage_thresholds: UsageThresholdsTable;
  render_usage: RenderUsageTable;
}

export type { Generated };
