import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

// Versioned migrations, in code so the single binary carries them. Never edit a released one: add a new one.
// Kysely's Migrator takes a lock table, so two instances starting together migrate once.

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
};

/** The newest migration's name: a database that has it applied is up to date. */
export const LATEST_MIGRATION = Object.keys(migrations).sort().at(-1)!;

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
