import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { Tracer } from '../../ports/tracer.js';

/**
 * A `db.query` span per query (transactions' queries included), made when its result arrives: Kysely
 * tells a plugin when a query is built and when its result is back, not when it fails, so a query that
 * throws leaves no span (the step around it, e.g. render.reserve, is marked failed instead). Attributes:
 * the database system and the operation, never the SQL or its parameters. Installed only with tracing on.
 */
export function dbTracingPlugin(tracer: Tracer, system: 'sqlite' | 'postgresql'): KyselyPlugin {
  const started = new WeakMap<object, { at: number; operation: string }>();
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      started.set(args.queryId, { at: performance.now(), operation: operationOf(args.node) });
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const query = started.get(args.queryId);
      if (query) {
        started.delete(args.queryId);
        tracer.record('db.query', { 'db.system': system, 'db.operation.name': query.operation }, query.at);
      }
      return args.result;
    },
  };
}

function operationOf(node: RootOperationNode): string {
  switch (node.kind) {
    case 'SelectQueryNode':
      return 'SELECT';
    case 'InsertQueryNode':
      return 'INSERT';
    case 'UpdateQueryNode':
      return 'UPDATE';
    case 'DeleteQueryNode':
      return 'DELETE';
    case 'MergeQueryNode':
      return 'MERGE';
    default:
      return 'RAW';
  }
}
