// A batch's combined PDF from files to a file: each item is read from disk only when its turn comes and
// the output is written as it is made (pdf/merge/combine.ts combineInto), so a worker holds one item
// and the combined file's bookkeeping, whatever the number of items. A signed combine is prepared here
// too (its signature field, byte range and digest); the caller, who holds the key, writes the CMS.
import { closeSync, openSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { combineInto, type CombineItem, type CombineOutcome } from '../pdf/merge/combine.js';
import type { SignatureSlot } from '../pdf/seal/signature-placeholder.js';

export interface CombineFileItem {
  path: string;
  flattened: boolean;
}

/** Writes the combined PDF of `items` to `output` (created, never overwritten); answers its size. */
export async function combineFiles(
  items: readonly CombineFileItem[],
  output: string,
  signature?: SignatureSlot,
): Promise<CombineOutcome> {
  const fd = openSync(output, 'wx', 0o600);
  try {
    return await combineInto(readEach(items), (chunk) => writeAll(fd, chunk), signature);
  } finally {
    closeSync(fd);
  }
}

async function* readEach(items: readonly CombineFileItem[]): AsyncGenerator<CombineItem> {
  for (const item of items) yield { bytes: await readFile(item.path), flattened: item.flattened };
}

function writeAll(fd: number, chunk: Uint8Array): void {
  for (let done = 0; done < chunk.byteLength; ) done += writeSync(fd, chunk, done, chunk.byteLength - done);
}
