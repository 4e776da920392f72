import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { dataResponse, errorResponse, IdParams, named, NoContent, ref, type Named } from '../../http/openapi.js';
import { createCertificate, deleteCertificate, listCertificates } from './manage-certificates.js';

const SigningCertificate = named(
  'SigningCertificate',
  Type.Object(
    {
      id: Type.String(),
      name: Type.String(),
      subject: Type.String({ description: 'the certificate subject, e.g. "CN=Acme Ltd, O=Acme"' }),
      issuer: Type.String(),
      serialNumber: Type.String({ description: 'hex' }),
      notBefore: Type.String({ format: 'date-time' }),
      notAfter: Type.String({ format: 'date-time' }),
      fingerprint: Type.String({ description: "SHA-256 of the certificate's DER, hex" }),
      isDefault: Type.Boolean({
        description:
          "the one `options.sign: true` uses: the account's default, else (an account without one) the operator's",
      }),
      owner: Type.Union([Type.Literal('account'), Type.Literal('operator')], {
        description:
          "`account`: uploaded by this account; `operator`: the server operator's certificate (id `crt_operator`), offered to every account, read-only (DELETE answers 409 CONFLICT)",
      }),
      createdAt: Type.String({
        format: 'date-time',
        description: "when it was uploaded; the operator's: when the server loaded it",
      }),
    },
    {
      description:
        "A signing certificate; its private key is sealed at rest (the operator's stays in the operator's file) and never returned",
    },
  ),
);
/** 256 KiB of PKCS#12 as base64: a key and a long chain fit many times over. */
const MAX_PKCS12_BASE64 = 349_528;
const SigningCertificateUpload = named(
  'SigningCertificateUpload',
  Type.Object(
    {
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      pkcs12: Type.String({
        minLength: 1,
        maxLength: MAX_PKCS12_BASE64,
        description:
          'The PKCS#12 (.p12 / .pfx) file, base64: one RSA or EC (P-256, P-384, P-521) private key and its certificate (chain optional)',
      }),
      password: Type.String({ maxLength: 1024, description: 'The PKCS#12 password; never stored' }),
      default: Type.Optional(
        Type.Boolean({ description: 'make it the one `options.sign: true` uses (the first upload always is)' }),
      ),
    },
    { additionalProperties: false },
  ),
);
const SigningCertificateResponse = dataResponse(SigningCertificate);
const SigningCertificateList = named(
  'SigningCertificateList',
  Type.Object({ data: Type.Array(ref(SigningCertificate)) }, { additionalProperties: false }),
);

export const signingComponents: Named[] = [
  SigningCertificate,
  SigningCertificateUpload,
  SigningCertificateResponse,
  SigningCertificateList,
];

export const signingRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/signing-certificates',
      {
        schema: {
          tags: ['signing'],
          operationId: 'createSigningCertificate',
          description:
            "Stores a PKCS#12 file (JSON: `pkcs12` in base64, `password`, optional `name` and `default`) whose private key signs renders that ask `options.sign`; the key is kept sealed under the server's key and never shown again. Refused with 422 VALIDATION_ERROR when it is not a PKCS#12, the password is wrong, its key is neither RSA nor EC on P-256, P-384 or P-521, or the certificate is outside its validity; 409 CONFLICT when the account already keeps the most certificates allowed.",
          summary: 'Store a signing certificate (PKCS#12 and its password) for options.sign',
          body: ref(SigningCertificateUpload),
          response: {
            201: ref(SigningCertificateResponse, 'The certificate (never its key)'),
            409: errorResponse('CONFLICT: the account already keeps the most certificates allowed'),
            413: errorResponse('PAYLOAD_TOO_LARGE'),
            422: errorResponse(
              'VALIDATION_ERROR: not a PKCS#12, wrong password, no private key, not an RSA or EC (P-256, P-384, P-521) key, expired or not yet valid',
            ),
          },
        },
      },
      async (request, reply) => {
        const data = await createCertificate(deps, request.auth.accountId, request.body);
        return reply.status(201).send({ data });
      },
    );

    app.get(
      '/signing-certificates',
      {
        schema: {
          tags: ['signing'],
          operationId: 'listSigningCertificates',
          description:
            "Every signing certificate of the account, newest first: subject, issuer, serial number, validity, fingerprint and whether it is the default; never the key. When the operator configured one, the operator's certificate comes last (`owner: operator`, id `crt_operator`): read-only, shown to every account, and what `options.sign: true` uses for an account without a default of its own. Not paged: an account keeps only a few.",
          summary: "The account's signing certificates, newest first, then the operator's",
          response: {
            200: ref(SigningCertificateList, "Every certificate of the account, then the operator's if there is one"),
          },
        },
      },
      async (request) => ({ data: await listCertificates(deps, request.auth.accountId) }),
    );

    app.delete(
      '/signing-certificates/:id',
      {
        schema: {
          tags: ['signing'],
          operationId: 'deleteSigningCertificate',
          description:
            "Deletes the certificate and its sealed key at once; it can no longer sign renders. PDFs already signed keep their signature. When it was the default, the newest certificate left becomes the default (none left: `options.sign: true` uses the operator's certificate, if any). The operator's certificate (`crt_operator`) cannot be deleted by an account: 409 CONFLICT.",
          summary: 'Delete a signing certificate and its sealed key',
          params: IdParams,
          response: {
            204: NoContent,
            404: errorResponse('SIGNING_CERTIFICATE_NOT_FOUND'),
            409: errorResponse("CONFLICT: the operator's certificate, which an account cannot delete"),
          },
        },
      },
      async (request, reply) => {
        await deleteCertificate(deps, request.auth.accountId, request.params.id);
        return reply.status(204).send(null);
      },
    );
  };
