import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles every response serializer not compiled yet (see lazySerializers); answers how many. */
    compileAllSerializers(): number;
  }
}

type Factory = ReturnType<typeof SerializerSelector>;
type RouteDefinition = Parameters<ReturnType<Factory>>[0];

/**
 * Fastify's response serializers (fast-json-stringify, as Fastify makes them), each compiled on its first
 * use instead of while the app starts. Compiling every route's schemas for every status was most of
 * building the app: ~1.5 s of CPU in one block on a loaded 2-core machine, which also held up everything
 * else the starting server ran (a webhook attempt's timer among them), and every test server paid it for
 * routes it never answers. A route's first answer with a status pays its own compile once (milliseconds).
 * `compileAll` compiles what is still pending, for a test that every schema compiles.
 */
export function lazySerializers(): { buildSerializer: Factory; compileAll(): number } {
  const build = SerializerSelector();
  const pending = new Set<() => void>();
  const buildSerializer: Factory = (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route: RouteDefinition) => {
      let serialize: ((doc: unknown) => string) | undefined;
      const ready = () => {
        pending.delete(ready);
        serialize ??= compile(route);
        return serialize;
      };
      pending.add(ready);
      return (doc: unknown) => (serialize ?? ready())(doc);
    };
  };
  return {
    buildSerializer,
    compileAll() {
      const all = [...pending];
      for (const ready of all) ready();
      return all.length;
    },
  };
}
