import {
  type ColumnMetadata,
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  table: string;
  table_type: string;
  schema: string;
  column: string;
  not_null: boolean;
  has_default: boolean;
  type: string;
  type_schema: string;
  auto_incrementing: boolean;
  column_description: string | null;
}

/**
 * Every column of the connection's schema's tables and views. A column is auto-incrementing when it is an
 * identity or owns a sequence (what pg_get_serial_sequence answers, found here by OID: that function looks
 * the table up by name). The owned columns are one join, not a subquery per column: the planner costed
 * that at ~120,000, over `jit_above_cost`, and PostgreSQL spent 0.4-0.6 s compiling the query at every
 * start (the test keeps it under).
 */
export function ownColumnsQuery() {
  return sql<ColumnRow>`
      select c.relname as "table", c.relkind as table_type, ns.nspname as "schema",
             a.attname as "column", a.attnotnull as not_null, a.atthasdef as has_default,
             typ.typname as "type", dtns.nspname as type_schema,
             (a.attidentity <> '' or owned.refobjid is not null) as auto_incrementing,
             col_description(c.oid, a.attnum) as column_description
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_catalog.pg_type typ on typ.oid = a.atttypid
      join pg_catalog.pg_namespace dtns on dtns.oid = typ.typnamespace
      left join (
        select distinct d.refobjid, d.refobjsubid
        from pg_catalog.pg_depend d
        join pg_catalog.pg_class seq on seq.oid = d.objid and seq.relkind = 'S'
        where d.classid = 'pg_catalog.pg_class'::regclass and d.refclassid = 'pg_catalog.pg_class'::regclass
          and d.deptype in ('a', 'i')
      ) owned on owned.refobjid = c.oid and owned.refobjsubid = a.attnum
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`;
}

/**
 * Kysely's PostgreSQL introspection, which its migrator uses to look for its own tables, limited to the
 * connection's schema (`current_schema()`, what search_path selects).
 *
 * Kysely's own lists the tables of every schema of the database and filters them with
 * `has_schema_privilege(name, …)`, a lookup by name outside the query's snapshot: a schema another
 * session drops while the query runs fails it with `schema "…" does not exist`, and with it our
 * start-up's migration. Seen when many servers share one database (the suite: a schema per server, created
 * and dropped beside each other; a deployment beside other applications' schemas). This one joins the
 * catalogs by OID only, looks nothing up by name, and evaluates its functions on the connection's own
 * schema's rows alone (the select list runs after the filter).
 */
class OwnSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows.map((r) => ({ name: r.name }));
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await ownColumnsQuery().execute(this.db);
    const internal = new Set([DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE]);
    const tables = new Map<string, TableMetadata & { columns: ColumnMetadata[] }>();
    for (const row of rows) {
      if (!options.withInternalKyselyTables && internal.has(row.table)) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.table_type === 'v', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        dataTypeSchema: row.type_schema,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_incrementing,
        comment: row.column_description ?? undefined,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

/** PostgreSQL as Kysely speaks it, with introspection limited to the connection's schema (above). */
export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}
