import type { Generated } from 'kysely';

// Table shapes as stored. Timestamps are ISO 8601 UTC strings (same text in SQLite and PostgreSQL, and
// they sort correctly as text); booleans are 0/1 integers; JSON is text.

export interface AccountsTable {
  id: string;
  name: string;
  plan: string;
  created_at: string;
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
  created_at: string;
  updated_at: string;
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
  /** instance (server process) that reserved it; see instances.ts. NULL for older rows. */
  owner: string | null;
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

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  templates: TemplatesTable;
  renders: RendersTable;
  leases: LeasesTable;
  idempotency_keys: IdempotencyTable;
  instances: InstancesTable;
  events: EventsTable;
}

export type { Generated };
