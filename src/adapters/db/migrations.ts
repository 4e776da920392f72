import { PostgresAdapter, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

// Versioned migrations, in code so the single binary carries them. Never edit a released one: add a new one.
// Kysely's Migrator takes a lock table, so two instances starting together migrate once.

// render_usage follows renders (0006_render_usage): a render counts while pending or completed. An
// update that changes neither whether it counts nor its account and month (pending -> completed, a
// tombstone) leaves the usage alone.
const COUNTS = (row: 'NEW' | 'OLD') => `${row}.status in ('pending', 'completed')`;
const MOVED = `(${COUNTS('OLD')}) <> (${COUNTS('NEW')}) or OLD.account_id <> NEW.account_id or OLD.month <> NEW.month`;

const USAGE_TRIGGERS_SQLITE = [
  `create trigger render_usage_insert after insert on renders when ${COUNTS('NEW')} begin
     insert or ignore into render_usage (account_id, month, renders) values (NEW.account_id, NEW.month, 0);
     update render_usage set renders = renders + 1 where account_id = NEW.account_id and month = NEW.month;
   end`,
  `create trigger render_usage_delete after delete on renders when ${COUNTS('OLD')} begin
     update render_usage set renders = renders - 1 where account_id = OLD.account_id and month = OLD.month;
   end`,
  `create trigger render_usage_update after update of status, account_id, month on renders when ${MOVED} begin
     update render_usage set renders = renders - 1
       where ${COUNTS('OLD')} and account_id = OLD.account_id and month = OLD.month;
     insert or ignore into render_usage (account_id, month, renders)
       select NEW.account_id, NEW.month, 0 where ${COUNTS('NEW')};
     update render_usage set renders = renders + 1
       where ${COUNTS('NEW')} and account_id = NEW.account_id and month = NEW.month;
   end`,
];

const USAGE_TRIGGERS_POSTGRES = [
  // search_path pinned to the migration's, so the function finds render_usage whatever a session's is
  `create function render_usage_follow() returns trigger language plpgsql set search_path from current as $$
   begin
     if TG_OP <> 'INSERT' and ${COUNTS('OLD')} then
       update render_usage set renders = renders - 1 where account_id = OLD.account_id and month = OLD.month;
     end if;
     if TG_OP <> 'DELETE' and ${COUNTS('NEW')} then
       insert into render_usage (account_id, month, renders) values (NEW.account_id, NEW.month, 1)
         on conflict (account_id, month) do update set renders = render_usage.renders + 1;
     end if;
     return null;
   end $$`,
  `create trigger render_usage_insert_delete after insert or delete on renders
     for each row execute function render_usage_follow()`,
  `create trigger render_usage_update after update of status, account_id, month on renders
     for each row when (${MOVED}) execute function render_usage_follow()`,
];

const migrations: Record<string, Migration> = {
  '0001_initial': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('plan', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('prefix', 'text', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_used_at', 'text')
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'created_at']).execute();

      await db.schema
        .createTable('templates')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('file_size', 'bigint', (c) => c.notNull())
        .addColumn('field_count', 'integer', (c) => c.notNull())
        .addColumn('page_count', 'integer', (c) => c.notNull())
        .addColumn('is_frozen', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('blob_key', 'text', (c) => c.notNull())
        .addColumn('analysis', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('templates_account_created')
        .on('templates')
        .columns(['account_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('renders')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('template_id', 'text', (c) => c.notNull())
        .addColumn('template_name', 'text', (c) => c.notNull())
        .addColumn('template_version', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('file_size', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('duration_ms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('warnings', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('error_code', 'text')
        .addColumn('error_message', 'text')
        .addColumn('blob_key', 'text')
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema
        .createIndex('renders_account_created')
        .on('renders')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      await db.schema
        .createIndex('renders_account_month')
        .on('renders')
        .columns(['account_id', 'month', 'status'])
        .execute();
      await db.schema.createIndex('renders_expires').on('renders').columns(['expires_at']).execute();

      await db.schema
        .createTable('leases')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('route', 'text', (c) => c.notNull())
        .addColumn('body_hash', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('response', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key', 'route'])
        .execute();
      void sql;
    },
  },
  // Liveness of server processes, so work cut by a crash is recognised at once instead of by its age:
  // each process renews its row in `instances`; renders and idempotency keys record the process
  // (`owner`) working on them. NULL owner = written before this migration (judged by age, as before).
  '0002_instances': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('instances')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('renders').addColumn('owner', 'text').execute();
      await db.schema.alterTable('idempotency_keys').addColumn('owner', 'text').execute();
      // the recovery of pending renders looks them up by status every minute
      await db.schema.createIndex('renders_status_created').on('renders').columns(['status', 'created_at']).execute();
    },
  },
  // The event outbox (issue 11): an event row is inserted in the same transaction as the change it reports;
  // webhook deliveries are fanned out from it in that transaction too.
  '0003_events': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('events_account_created')
        .on('events')
        .columns(['account_id', 'created_at'])
        .execute();
    },
  },
  // Async and batch renders (issue 11). An accepted async render is a pending `renders` row (its quota
  // reservation) plus a `render_jobs` row holding its request, so a job survives any crash: a runner claims
  // it under a lease (owner instance + expiry) and another instance re-runs it when the owner dies. The
  // job row is deleted in the transaction that completes or fails the render. `render_batches` groups
  // items (renders.batch_id, batch_index) and holds the combined PDF's blob once every item is done.
  '0005_batches': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('render_jobs')
        .addColumn('render_id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('batch_id', 'text')
        .addColumn('priority', 'integer', (c) => c.notNull())
        .addColumn('input', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'text')
        .addColumn('run_after', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('render_jobs_due')
        .on('render_jobs')
        .columns(['priority', 'run_after', 'render_id'])
        .execute();
      await db.schema
        .createTable('render_batches')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('item_count', 'integer', (c) => c.notNull())
        .addColumn('combine', 'integer', (c) => c.notNull())
        .addColumn('combined_blob_key', 'text')
        .addColumn('combine_error', 'text')
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('completed_at', 'text')
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('deleted_at', 'text')
        .execute();
      await db.schema
        .createIndex('render_batches_account_created')
        .on('render_batches')
        .columns(['account_id', 'created_at', 'id'])
        .execute();
      await db.schema.createIndex('render_batches_status').on('render_batches').columns(['status']).execute();
      await db.schema.alterTable('renders').addColumn('batch_id', 'text').execute();
      await db.schema.alterTable('renders').addColumn('batch_index', 'integer').execute();
      await db.schema.alterTable('renders').addColumn('flattened', 'integer').execute();
      await db.schema.createIndex('renders_batch').on('renders').columns(['batch_id', 'batch_index']).execute();
    },
  },
  // Webhooks (issue 11): endpoints, one delivery per (event, endpoint) fanned out in the event's own
  // transaction, a per-endpoint log (created, secret rotated, disabled...), and the usage thresholds
  // already announced this month (so 80 % and 100 % are sent once each, whatever the concurrency).
  '0004_webhooks': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('events', 'text', (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('disabled_reason', 'text')
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_expires_at', 'text')
        .addColumn('failing_since', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_endpoints_account_created')
        .on('webhook_endpoints')
        .columns(['account_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('endpoint_id', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'text')
        .addColumn('claimed_by', 'text')
        .addColumn('last_attempt_at', 'text')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('last_duration_ms', 'integer')
        .addColumn('attempt_log', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('completed_at', 'text')
        .execute();
      // the delivery worker's claim: due pending deliveries, oldest first
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      // the purge of old events looks for deliveries still pointing at them
      await db.schema.createIndex('webhook_deliveries_event').on('webhook_deliveries').column('event_id').execute();
      await db.schema.createIndex('events_created').on('events').column('created_at').execute();
      await db.schema
        .createIndex('webhook_deliveries_endpoint_created')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('webhook_endpoint_log')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('endpoint_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_endpoint_log_endpoint')
        .on('webhook_endpoint_log')
        .columns(['endpoint_id', 'created_at', 'id'])
        .execute();

      await db.schema
        .createTable('usage_thresholds')
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('threshold', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('usage_thresholds_pk', ['account_id', 'month', 'threshold'])
        .execute();
    },
  },
  // A reservation read the month's usage by counting the account's renders of the month: ~25 ns a row on
  // SQLite, so 0.2 ms at 8,000 renders and 0.8 ms at 32,000, on every render and under the account lock.
  // render_usage holds that count per account and month, kept by triggers on renders in the transaction
  // of each change: exact whatever writes renders (this release, an older one still running during a
  // rolling upgrade, an operator's SQL). Filled from the renders here, with writers to renders held off
  // meanwhile so that no render is counted twice or missed.
  '0006_render_usage': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
      // PostgreSQL runs a migration in a transaction (Kysely): this lock lasts until it commits.
      // SQLite does not: an immediate transaction takes the database's write lock now.
      await sql.raw(postgres ? 'lock table renders in share row exclusive mode' : 'begin immediate').execute(db);
      try {
        await db.schema
          .createTable('render_usage')
          .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
          .addColumn('month', 'text', (c) => c.notNull())
          .addColumn('renders', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('render_usage_pk', ['account_id', 'month'])
          .execute();
        for (const statement of postgres ? USAGE_TRIGGERS_POSTGRES : USAGE_TRIGGERS_SQLITE)
          await sql.raw(statement).execute(db);
        await db
          .insertInto('render_usage')
          .columns(['account_id', 'month', 'renders'])
          .expression(
            db
              .selectFrom('renders')
              .select(['account_id', 'month', (eb) => eb.fn.countAll().as('renders')])
              .where('status', 'in', ['pending', 'completed'])
              .groupBy(['account_id', 'month']),
          )
          .execute();
        if (!postgres) await sql.raw('commit').execute(db);
      } catch (err) {
        if (!postgres) await sql.raw('rollback').execute(db);
        throw err;
      }
    },
  },
  // A team's own keys, defaults and rules per field, kept with the template, and the versions a
  // template went through (PATCH /templates/:id/fields, file replacements). Existing templates get no
  // settings ('{}': every key stays the analyser's) and no history until their next change.
  '0007_field_settings': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema
        .alterTable('templates')
        .addColumn('field_settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      await db.schema
        .createTable('template_versions')
        .addColumn('template_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('change', 'text', (c) => c.notNull())
        .addColumn('fields', 'text', (c) => c.notNull())
        .addColumn('report', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('template_versions_pk', ['template_id', 'version'])
        .execute();
    },
  },
  // Render defaults a template sets for its renders (null: the operator's DEFAULT_LOCALE / DEFAULT_TIMEZONE,
  // whose own defaults are the reference's fr-FR / Europe/Paris); a request's options win over them.
  '0008_locale_defaults': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema.alterTable('templates').addColumn('default_locale', 'text').execute();
      await db.schema.alterTable('templates').addColumn('default_timezone', 'text').execute();
    },
  },
  // Sealed outputs (issue 26): each render's SHA-256 (POST /renders/verify finds a file by it, per
  // account), whether its file is password-protected or signed, and the accounts' signing certificates
  // (the private key sealed as webhook secrets are). Named 0009 so a concurrent 0008 can land first.
  '0009_render_sealing': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema.alterTable('renders').addColumn('sha256', 'text').execute();
      await db.schema
        .alterTable('renders')
        .addColumn('protected', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('renders').addColumn('signed_with', 'text').execute();
      await db.schema.createIndex('renders_account_sha256').on('renders').columns(['account_id', 'sha256']).execute();
      await db.schema
        .createTable('signing_certificates')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('issuer', 'text', (c) => c.notNull())
        .addColumn('serial_number', 'text', (c) => c.notNull())
        .addColumn('not_before', 'text', (c) => c.notNull())
        .addColumn('not_after', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('certificates', 'text', (c) => c.notNull())
        .addColumn('private_key', 'text', (c) => c.notNull())
        .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('signing_certificates_account')
        .on('signing_certificates')
        .columns(['account_id', 'created_at'])
        .execute();
    },
  },
  // An account's render defaults (GET/PATCH /account/settings): between a template's and the operator's
  // (null: the operator's DEFAULT_LOCALE / DEFAULT_TIMEZONE).
  '0010_account_settings': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema.alterTable('accounts').addColumn('default_locale', 'text').execute();
      await db.schema.alterTable('accounts').addColumn('default_timezone', 'text').execute();
    },
  },
  // Background work carries the W3C traceparent of the request that enqueued it (null: tracing off, or
  // no request), so its spans join that request's trace.
  '0011_trace_context': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      for (const table of ['render_jobs', 'render_batches', 'webhook_deliveries'])
        await db.schema.alterTable(table).addColumn('traceparent', 'text').execute();
    },
  },
  // Signed batches (issue 26): the certificate a batch's combined PDF is signed with, once, as a whole.
  '0012_batch_signing': {
    // biome-ignore lint/suspicious/noExplicitAny: migrations see the database as it was, not as the current schema type says (Kysely's advice)
    async up(db: Kysely<any>) {
      await db.schema.alterTable('render_batches').addColumn('signed_with', 'text').execute();
    },
  },
};

/** The newest migration's name: a database that has it applied is up to date. */
export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1)!;

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
