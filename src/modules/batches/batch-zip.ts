import { PassThrough, type Readable } from 'node:stream';
import { once } from 'node:events';
import { Zip, ZipPassThrough } from 'fflate';
import type { Deps } from '../../deps.js';
import { downloadFileName } from '../downloads/download-url.js';
import type { RenderRow } from '../renders/render-records.js';

/**
 * A ZIP of the batch's completed item files, in item order, streamed as it is built: one item's file is
 * held in memory at a time (stored, not deflated: PDFs are compressed already). Names are
 * "<index, from 1, zero-padded>-<template name>-<render id>.pdf".
 */
export function streamBatchZip(deps: Pick<Deps, 'blobs' | 'log'>, items: RenderRow[]): Readable {
  const out = new PassThrough();
  const zip = new Zip((err, chunk, final) => {
    if (err) return void out.destroy(err);
    out.write(chunk);
    if (final) out.end();
  });
  const width = String(items.length).length;
  void (async () => {
    for (const r of items) {
      if (r.status !== 'completed' || !r.blob_key) continue;
      const bytes = await deps.blobs.get(r.blob_key);
      const name = `${String((r.batch_index ?? 0) + 1).padStart(width, '0')}-${downloadFileName(r.template_name, r.id)}`;
      const file = new ZipPassThrough(name);
      zip.add(file);
      file.push(bytes, true);
      if (out.writableNeedDrain) await once(out, 'drain');
    }
    zip.end();
  })().catch((err) => {
    deps.log.warn({ err }, 'batch ZIP cut short');
    out.destroy(err);
  });
  return out;
}
