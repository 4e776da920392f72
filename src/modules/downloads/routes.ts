import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { BlobNotFoundError } from '../../ports/blob-store.js';
import { checkSignature } from './signing.js';
import { downloadFileName } from './download-url.js';
import { hasAmbiguousParams } from './link-params.js';
import { findRenderForDownload, listBatchItemRows } from '../renders/render-records.js';
import { findBatchForDownload } from '../batches/batch-records.js';
import { streamBatchZip } from '../batches/batch-zip.js';
import { attachmentDisposition } from '../../lib/content-disposition.js';
import { errorResponse, IdParams } from '../../http/openapi.js';

/** A batch's files: `<batch id>.pdf` (the combined PDF) and `<batch id>.zip` (every completed item). */
const BATCH_FILE = /^(bat_[0-9a-f]{24})\.(pdf|zip)$/;

async function sendBatchFile(deps: Deps, reply: FastifyReply, batchId: string, ext: 'pdf' | 'zip', now: Date) {
  const batch = await findBatchForDownload(deps.db, batchId);
  const gone = () => new AppError('DOWNLOAD_FORBIDDEN', 'This batch file no longer exists');
  if (!batch || batch.deleted_at || batch.status !== 'completed' || batch.expires_at <= now.toISOString()) throw gone();
  reply.header('Cache-Control', 'private, no-store');
  if (ext === 'zip') {
    const items = await listBatchItemRows(deps.db, batch.account_id, batch.id);
    if (!items.some((r) => r.status === 'completed' && r.blob_key)) throw gone();
    reply.header('Content-Type', 'application/zip');
    reply.header('Content-Disposition', attachmentDisposition(`${batch.id}.zip`));
    return reply.send(streamBatchZip(deps, items));
  }
  if (!batch.combined_blob_key) throw gone();
  let file;
  try {
    file = await deps.blobs.stream(batch.combined_blob_key);
  } catch (err) {
    if (err instanceof BlobNotFoundError) throw gone();
    throw err;
  }
  reply.header('Content-Type', 'application/pdf');
  reply.header('Content-Length', String(file.size));
  reply.header('Content-Disposition', attachmentDisposition(`${batch.id}.pdf`));
  return reply.send(file.body);
}

/** GET /v1/files/:id?expires&signature — no Authorization header; the signature authorises. */
export const downloadRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/files/:id',
      {
        // before query validation: a repeated parameter must be 403, not a 422 about its type
        onRequest: async (request) => {
          if (hasAmbiguousParams(request.url))
            throw new AppError(
              'DOWNLOAD_FORBIDDEN',
              'This download link is invalid: a parameter is repeated or its name is encoded',
            );
        },
        schema: {
          tags: ['downloads'],
          operationId: 'downloadFile',
          summary:
            "Download a rendered PDF, or a batch's combined PDF (`<batch id>.pdf`) or ZIP (`<batch id>.zip`), through a signed link (no Authorization header)",
          description: 'Follow a downloadUrl as given; GET /v1/renders/{id} signs a fresh one when it has expired.',
          security: [],
          params: IdParams,
          querystring: Type.Object({ expires: Type.Optional(Type.String()), signature: Type.Optional(Type.String()) }),
          response: {
            200: {
              description: 'The PDF',
              content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
            },
            403: errorResponse('DOWNLOAD_FORBIDDEN: the link is invalid or expired, or the render is gone'),
          },
        },
      },
      async (request, reply) => {
        const now = deps.clock.now();
        const check = checkSignature(
          deps.signingKey,
          request.params.id,
          request.query.expires,
          request.query.signature,
          now.getTime(),
        );
        if (check === 'invalid') throw new AppError('DOWNLOAD_FORBIDDEN', 'This download link is invalid');
        if (check === 'expired')
          throw new AppError(
            'DOWNLOAD_FORBIDDEN',
            'This download link has expired; GET /v1/renders/:id for a fresh one',
          );
        const batchFile = BATCH_FILE.exec(request.params.id);
        if (batchFile) return sendBatchFile(deps, reply, batchFile[1], batchFile[2] as 'pdf' | 'zip', now);
        const render = await findRenderForDownload(deps.db, request.params.id);
        if (
          !render ||
          render.deleted_at ||
          !render.blob_key ||
          render.status !== 'completed' ||
          render.expires_at <= now.toISOString()
        ) {
          throw new AppError('DOWNLOAD_FORBIDDEN', 'This render no longer exists');
        }
        let file;
        try {
          file = await deps.blobs.stream(render.blob_key);
        } catch (err) {
          if (err instanceof BlobNotFoundError)
            throw new AppError('DOWNLOAD_FORBIDDEN', 'This render no longer exists');
          throw err;
        }
        reply.header('Content-Type', 'application/pdf');
        reply.header('Content-Length', String(file.size));
        reply.header('Content-Disposition', attachmentDisposition(downloadFileName(render.template_name, render.id)));
        reply.header('Cache-Control', 'private, no-store');
        return reply.send(file.body);
      },
    );
  };
