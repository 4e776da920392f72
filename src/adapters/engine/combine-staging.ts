// The temporary files of a combine, on the server's side of the engine: a private folder per combine
// (mode 0700, under the system's temp folder: TMPDIR), filled with the items one at a time from their
// streams, so the server never holds more than a stream's buffer of them; the engine writes the
// combined file into the same folder. The folder goes on failure here and on `dispose` otherwise.
import { createWriteStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { CombinedFile, CombineSource } from '../../ports/render-engine.js';
import type { CombineFileItem } from '../../workers/combine-files.js';
import type { CombineOutcome } from '../../pdf/merge/combine.js';

/** Names the folders of combines in the temp folder: `formcast-combine-<server pid>-<random>`. */
const COMBINE_FOLDER_PREFIX = 'formcast-combine-';
/** Items copied from storage at once. */
const STAGING_COPIES = 4;

/**
 * Copies `sources` to files in a fresh private folder, runs `build` on them (it writes `output`), then
 * deletes the inputs and answers the combined file; on any failure the whole folder is removed.
 */
export async function stagedCombine(
  sources: readonly CombineSource[],
  build: (items: CombineFileItem[], output: string) => Promise<CombineOutcome>,
  root = os.tmpdir(),
): Promise<CombinedFile> {
  const dir = await mkdtemp(path.join(root, `${COMBINE_FOLDER_PREFIX}${process.pid}-`));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const items: CombineFileItem[] = sources.map((source, i) => ({
      path: path.join(dir, `item-${i}.pdf`),
      flattened: source.flattened,
    }));
    // A few copies at a time (storage latency overlaps), each through a stream's small buffer.
    // All copiers have stopped before the folder may be removed (allSettled); one failing stops the others.
    let next = 0;
    let failed = false;
    const copier = async () => {
      for (let i = next++; i < sources.length && !failed; i = next++) {
        try {
          await pipeline(await sources[i]!.open(), createWriteStream(items[i]!.path, { flags: 'wx', mode: 0o600 }));
        } catch (err) {
          failed = true;
          throw err;
        }
      }
    };
    const copies = await Promise.allSettled(Array.from({ length: Math.min(STAGING_COPIES, sources.length) }, copier));
    const refused = copies.find((c) => c.status === 'rejected');
    if (refused) throw refused.reason;
    const output = path.join(dir, 'combined.pdf');
    const { signature } = await build(items, output);
    await Promise.all(items.map((item) => rm(item.path, { force: true })));
    const { size } = await stat(output);
    return { path: output, size, signature, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}

/**
 * Removes the combine folders of server processes that are gone (killed mid-combine: no `finally` ran).
 * Run when an engine starts; a folder of a live process, this one's included, is left alone.
 */
export async function sweepDeadCombineFolders(root = os.tmpdir()): Promise<void> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^formcast-combine-(\d+)-/.exec(name)?.[1]);
    if (!pid || alive(pid)) continue;
    await rm(path.join(root, name), { recursive: true, force: true }).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, someone else's
  }
}
