import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** Compiles every route schema not compiled yet (see lazySchemaCompilers); answers how many. */
    compileAllSchemas(): number;
  }
}

type Compilers = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type BuildSerializer = NonNullable<Compilers['buildSerializer']>;
type SerializerRoute = Parameters<ReturnType<BuildSerializer>>[0];
type Validate = ((data: unknown, ctx?: unknown) => unknown) & { errors?: unknown; schemaEnv?: unknown };
/** What Fastify calls a validator factory with, and what it does with the result (its .d.ts is narrower). */
type ValidatorRoute = { schema: unknown; method: string; url: string; httpPart?: string };
type BuildValidator = (externalSchemas: unknown, options: unknown) => (route: ValidatorRoute) => Validate;

/**
 * Fastify's request validators (Ajv) and response serializers (fast-json-stringify), made as Fastify
 * makes them but each compiled on its first use instead of while the app starts. Compiling every route's
 * schemas was most of building the app (~1.5 s of CPU for the serializers and ~0.3 s for the validators,
 * in one block, on a loaded 2-core machine), which held up everything else a starting server ran (a
 * webhook attempt's timer among them), and every test server paid it for routes it never answers. A
 * route's first request (or first answer with a status) pays its own compile once, milliseconds.
 * `compileAll` compiles what is still pending, so a test can check that every schema compiles.
 */
export function lazySchemaCompilers(): { compilersFactory: Compilers; compileAll(): number } {
  const pending = new Set<() => void>();
  /** A function compiled on its first call, or by compileAll. */
  const later = <F>(compile: () => F): (() => F) => {
    let made: F | undefined;
    const ready = () => {
      if (made === undefined) {
        pending.delete(ready);
        made = compile();
      }
      return made;
    };
    pending.add(ready);
    return ready;
  };

  const validators = AjvCompiler() as unknown as BuildValidator;
  const buildValidator: BuildValidator = (externalSchemas, options) => {
    const compile = validators(externalSchemas, options);
    return (route: ValidatorRoute) => {
      // A custom compiler gets header schemas as written; Fastify's own lower-cases their names (Node
      // gives header names lower-cased), so this does the same.
      const given = route.httpPart === 'headers' ? { ...route, schema: lowerCaseNames(route.schema) } : route;
      const ready = later(() => compile(given));
      const validate: Validate = (data, ctx) => {
        const fn = ready();
        const ok = ctx === undefined ? fn(data) : fn(data, ctx);
        // Fastify reads a failed validation's errors from the function it was given
        validate.errors = fn.errors;
        return ok;
      };
      // Fastify passes the parent object (so Ajv can coerce a root value in place) when this is set.
      Object.defineProperty(validate, 'schemaEnv', { get: () => ready().schemaEnv });
      return validate;
    };
  };

  const serializers = SerializerSelector();
  const buildSerializer: BuildSerializer = (externalSchemas, options) => {
    const compile = serializers(externalSchemas, options);
    return (route: SerializerRoute) => {
      const ready = later(() => compile(route));
      return (doc: unknown) => ready()(doc);
    };
  };

  return {
    compilersFactory: { buildValidator: buildValidator as unknown as Compilers['buildValidator'], buildSerializer },
    compileAll() {
      const all = [...pending];
      for (const ready of all) ready();
      return all.length;
    },
  };
}

/** A header schema with its property names (and required names) in lower case. */
function lowerCaseNames(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const s = schema as { properties?: Record<string, unknown>; required?: unknown };
  const out: Record<string, unknown> = { ...s };
  if (s.properties && typeof s.properties === 'object')
    out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k.toLowerCase(), v]));
  if (Array.isArray(s.required)) out.required = s.required.map((k) => (typeof k === 'string' ? k.toLowerCase() : k));
  return out;
}
