// Queries of the request path, built and compiled once, then run with new values. Kysely builds an
// immutable tree for every query and compiles it to SQL again on every call: ~5-15 µs a query on a
// quiet core, several times that on a busy one, for ~10 queries per render, while SQLite runs most of
// them in 2-20 µs (profiled: the builder cost about as much as SQLite itself). The SQL text of these
// queries never changes; only their values do.
//
// How: the query is built once with a stand-in for each named value (a string no real value contains:
// it starts with U+0000, which the API refuses in every input), compiled by the database's own compiler,
// and each compiled parameter is remembered as either "the value named X" or the constant the builder
// put there. A call then fills the parameters and runs the compiled query. Both dialects work: the SQL
// comes from the dialect's compiler, once per database (cached by its dialect adapter, which a database
// and its transactions share).
import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import type { Db } from './database.js';

interface Compiled {
  query: CompiledQuery;
  /** per compiled parameter: the name of the value that goes there, or null for the constant in `query` */
  slots: (string | null)[];
}

const STAND_IN = '\u0000formcast-value:';

/**
 * A query run with `values` (an object of named values: the builder reads them as `v.name`, or takes the
 * whole object, e.g. a row to insert). The named values must be plain values the builder binds as
 * parameters (no lists whose length varies, nothing spliced into the SQL text): checked when compiled.
 * A database with Kysely plugins gets the query built every time (plugins rewrite the built query).
 */
export function preparedQuery<V extends object, O>(
  build: (db: Db, v: V) => Compilable<O>,
): (db: Db, values: V) => Promise<QueryResult<O>> {
  // by dialect adapter (one per database), then by the values' names (an insert's row may vary in columns)
  const cache = new WeakMap<object, Map<string, Compiled>>();

  const compile = (db: Db, names: string[]): Compiled => {
    const standIns = Object.fromEntries(names.map((n) => [n, STAND_IN + n])) as V;
    const query = build(db, standIns).compile() as CompiledQuery;
    const slots = query.parameters.map((p) =>
      typeof p === 'string' && p.startsWith(STAND_IN) ? p.slice(STAND_IN.length) : null,
    );
    const unbound = names.filter((n) => !slots.includes(n));
    if (unbound.length || query.sql.includes(STAND_IN))
      throw new Error(`preparedQuery: values ${unbound.join(', ') || '(in the SQL text)'} are not parameters`);
    return { query, slots };
  };

  return async (db, values) => {
    const executor = db.getExecutor();
    if (executor.plugins.length) return db.executeQuery(build(db, values));
    const named = values as Record<string, unknown>;
    const names = Object.keys(named).filter((n) => named[n] !== undefined); // as Kysely leaves them out
    const shape = names.join('\u0000');
    let byShape = cache.get(executor.adapter);
    if (!byShape) cache.set(executor.adapter, (byShape = new Map()));
    let compiled = byShape.get(shape);
    if (!compiled) byShape.set(shape, (compiled = compile(db, names)));
    const { query, slots } = compiled;
    const parameters = slots.map((name, i) => (name === null ? query.parameters[i] : named[name]));
    return db.executeQuery<O>({ ...query, parameters } as CompiledQuery<O>);
  };
}
