import { Type } from '@sinclair/typebox';
import { named, ref } from '../../http/openapi.js';

// What a caller sends to have a template filled: the body of POST /renders, of each batch item, and the
// options of a preview. One definition serves every route and the CLI.

export const RenderOptions = named(
  'RenderOptions',
  Type.Object(
    {
      flatten: Type.Optional(Type.Boolean({ default: true, description: 'Flatten the fields into page content' })),
      // no schema default: a missing locale or time zone is the template's, else the account's, else the server's (render-defaults.ts)
      locale: Type.Optional(
        Type.String({
          maxLength: 64,
          description:
            "BCP 47 locale for dates and numbers. When left out: the template's `locale`, else the account's (GET /account/settings), else the server's DEFAULT_LOCALE (fr-FR unless the operator set another)",
          examples: ['fr-FR'],
        }),
      ),
      timezone: Type.Optional(
        Type.String({
          maxLength: 64,
          description:
            "IANA time zone that date-times are converted to. When left out: the template's `timezone`, else the account's (GET /account/settings), else the server's DEFAULT_TIMEZONE (Europe/Paris unless the operator set another)",
          examples: ['Europe/Paris'],
        }),
      ),
      watermark: Type.Optional(
        Type.Union([Type.Boolean(), Type.Literal('auto')], { default: 'auto', description: 'auto: as the plan says' }),
      ),
      strict: Type.Optional(Type.Boolean({ default: false, description: 'Unknown or missing fields are errors' })),
      calculate: Type.Optional(
        Type.Boolean({
          default: true,
          description:
            "Run the form's own calculate, format, keystroke and validate scripts: computed fields get the form's values, and data for them is ignored with a COMPUTED_FIELD_IGNORED warning (refused in strict mode). false skips every script and fills computed fields from data, read-only ones included",
        }),
      ),
      async: Type.Optional(
        Type.Boolean({
          default: false,
          description:
            'Answer 202 at once with the render pending (also `Prefer: respond-async`); GET /v1/renders/:id and the render.completed / render.failed webhooks follow it',
        }),
      ),
      protect: Type.Optional(
        Type.Object(
          {
            userPassword: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 127,
                description: 'Asked to open the file; absent: it opens without one',
              }),
            ),
            ownerPassword: Type.String({ minLength: 1, maxLength: 127, description: 'Lifts the permissions' }),
            permissions: Type.Object(
              {
                print: Type.Boolean(),
                copy: Type.Boolean(),
                modify: Type.Boolean(),
                annotate: Type.Boolean(),
                fillForms: Type.Boolean(),
              },
              { additionalProperties: false },
            ),
          },
          {
            additionalProperties: false,
            description:
              'Encrypt the file with AES-256 (revision 6) and these permissions. The passwords are never stored or logged; synchronous renders only (an async render would have to store them)',
          },
        ),
      ),
      sign: Type.Optional(
        Type.Union([Type.Boolean(), Type.String({ minLength: 1, maxLength: 100 })], {
          description:
            "Sign the file (PAdES baseline B-B, B-T when the server has a time-stamp authority) as its last revision: true with the account's default signing certificate, or a certificate id",
        }),
      ),
    },
    { additionalProperties: false },
  ),
);
export const RenderRequest = named(
  'RenderRequest',
  Type.Object(
    {
      templateId: Type.String({ minLength: 1, maxLength: 100 }),
      data: Type.Object(
        {},
        { additionalProperties: true, description: 'Values keyed by schema field name (or original PDF name)' },
      ),
      options: Type.Optional(ref(RenderOptions)),
    },
    {
      additionalProperties: false,
      examples: [
        {
          templateId: 'tpl_01a21680738b60de6c07f401',
          data: { name: 'Jeanne Martin', amount: 1250.5, signed_on: '2026-11-26', agree: true },
          options: { flatten: true },
        },
      ],
    },
  ),
);
