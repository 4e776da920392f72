import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ERROR_STATUS } from '../errors.js';

// Named OpenAPI components. A schema built with `named('Name', ...)` and registered with app.addSchema()
// (app.ts passes every module's `components` list to registerOpenApi) appears as
// #/components/schemas/Name; routes point at it with ref(schema), which Fastify resolves for validation
// and serialisation and the TypeBox type provider types as Static<T>.
// Adding a resource: `const Webhook = named('Webhook', Type.Object(...))`, list it (and its
// dataResponse()/pageResponse() wrappers) in the module's exported `components`, spread that list into
// app.ts's registerOpenApi call, ref() it in the routes, give each route an operationId, then
// `npm run openapi`. A name registered twice fails at start-up.

export type Named<T extends TSchema = TSchema> = T & { $id: string };

/** A schema that becomes the component `name` once registered with app.addSchema(). */
export function named<T extends TSchema>(name: string, schema: T): Named<T> {
  return Object.assign(schema, { $id: name });
}

/** A string enum written as one (`enum: [...]`, not a union of constants): errors list the values. */
export function stringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A reference to a named schema (`{ $ref: "Name#" }`), typed as the schema itself. */
export function ref<T extends Named>(schema: T, description?: string) {
  return Type.Unsafe<Static<T>>(description ? { $ref: `${schema.$id}#`, description } : { $ref: `${schema.$id}#` });
}

/** `{ data: T }`, the envelope of every single-object answer, named `<T>Response`. */
export function dataResponse<T extends Named>(schema: T) {
  return named(`${schema.$id}Response`, Type.Object({ data: ref(schema) }, { additionalProperties: false }));
}

const PageMeta = named(
  'PageMeta',
  Type.Object(
    {
      page: Type.Integer({ description: 'This page number, from 1' }),
      limit: Type.Integer({ description: 'Page size asked for' }),
      total: Type.Integer({ description: 'Items in the whole list (with the filters applied)' }),
      hasMore: Type.Boolean({ description: 'Another page follows this one' }),
      nextCursor: Type.Union([Type.String(), Type.Null()], {
        description:
          'Pass as `starting_after` to get the next page (stable while items are added); null on the last page',
      }),
    },
    { examples: [{ page: 1, limit: 20, total: 1, hasMore: false, nextCursor: null }] },
  ),
);

/** `{ data: T[], meta }`, a page of a list, named `<T>List` unless named otherwise. */
export function pageResponse<T extends Named>(schema: T, name = `${schema.$id}List`) {
  return named(name, Type.Object({ data: Type.Array(ref(schema)), meta: ref(PageMeta) }));
}

const ErrorCodeSchema = named(
  'ErrorCode',
  stringEnum(Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[], {
    description: 'Stable, machine-readable error code; the HTTP status follows from it',
  }),
);

const ValidationProblemSchema = named(
  'ValidationProblem',
  Type.Object(
    {
      field: Type.String({ description: 'The data key, body property or parameter, e.g. "amount", "options.locale"' }),
      expected: Type.String(),
      received: Type.String(),
      message: Type.String(),
      value: Type.Optional(Type.String({ description: "the value refused (a form script's check)" })),
    },
    { additionalProperties: true, description: 'One problem of a VALIDATION_ERROR' },
  ),
);

/** `details` of every code that has any (the error code list at /docs says which code gives which). */
const ErrorDetails = named(
  'ErrorDetails',
  Type.Object(
    {
      field: Type.Optional(Type.String({ description: 'VALIDATION_ERROR: the first problem' })),
      expected: Type.Optional(Type.String({ description: 'VALIDATION_ERROR: the first problem' })),
      received: Type.Optional(Type.String({ description: 'VALIDATION_ERROR: the first problem' })),
      errors: Type.Optional(
        Type.Array(ref(ValidationProblemSchema), { description: 'VALIDATION_ERROR: every problem at once' }),
      ),
      used: Type.Optional(Type.Integer({ description: 'RENDER_LIMIT_REACHED, TEMPLATE_LIMIT_REACHED' })),
      limit: Type.Optional(Type.Integer({ description: 'RENDER_LIMIT_REACHED, TEMPLATE_LIMIT_REACHED' })),
      requested: Type.Optional(Type.Integer({ description: 'RENDER_LIMIT_REACHED from a batch: renders it needed' })),
      renderId: Type.Optional(Type.String({ description: 'RENDER_FAILED: the failed render, kept' })),
    },
    {
      additionalProperties: true,
      description: 'Structured context of an error; which properties a code gives is listed at /docs',
    },
  ),
);

export const ErrorEnvelope = named(
  'Error',
  Type.Object(
    {
      error: Type.Object({
        code: ref(ErrorCodeSchema),
        message: Type.String({ description: 'For humans; may change between versions' }),
        details: Type.Optional(ref(ErrorDetails)),
      }),
    },
    { description: 'The envelope of every error answer' },
  ),
);

/** An error answer documented for one status, e.g. `404: errorResponse('The template does not exist')`. */
export function errorResponse(description?: string) {
  return ref(ErrorEnvelope, description);
}

/** Schemas every module shares; app.ts registers them with the modules' own. */
export const commonComponents: Named[] = [
  ErrorCodeSchema,
  ValidationProblemSchema,
  ErrorDetails,
  ErrorEnvelope,
  PageMeta,
];

/** 204 No Content. */
export const NoContent = Type.Null({ description: 'Done; no body' });

/** The `:id` path parameter of every resource route. */
export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

/**
 * Documents the Idempotency-Key header (http/idempotency.ts checks it, so that its errors keep their
 * wording): same key and body within 24 hours replays the first success.
 */
export const IdempotencyHeaders = Type.Object({
  'Idempotency-Key': Type.Optional(
    Type.String({
      description:
        'Makes a retry safe: the same key with the same body within 24 hours replays the first successful ' +
        'answer (header Idempotent-Replayed: true) instead of doing the work twice. 1-255 printable ASCII characters.',
    }),
  ),
});

/** The schema key that names a route's multipart body (routes read uploads as streams, unvalidated). */
export const MULTIPART_BODY = 'x-multipart-body';

/**
 * Documents a multipart/form-data request body: spread into a route's schema,
 * `schema: { ...multipartBody(TemplateUpload), ... }`. Fastify does not validate it (the route reads
 * the parts itself); the document's request body becomes `#/components/schemas/<name>`.
 */
export function multipartBody(schema: Named): Record<typeof MULTIPART_BODY, string> {
  return { [MULTIPART_BODY]: schema.$id };
}
