// The temporary files of a combine, on the server's side of the engine: a private folder per combine
// (mode 0700, under the system's temp folder: TMPDIR), filled with the items one at a time from their
// streams, so the server never holds more than a stream's buffer of them; the engine writes the
// combined file into the same folder. The folder goes on failure here and on `dispose` otherwise.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { CombinedFile, CombineSource } from '../../ports/render-engine.js';
import type { CombineFileItem } from '../../workers/combine-files.js';

/** Names the folders of combines in the temp folder (an operator can find and clean them). */
export const COMBINE_FOLDER_PREFIX = 'formcast-combine-';

/**
 * Copies `sources` to files in a fresh private folder, runs `build` on them (it writes `output`), then
 * deletes the inputs and answers the combined file; on any failure the whole folder is removed.
 */
export async function stagedCombine(
  sources: readonly CombineSource[],
  build: (items: CombineFileItem[], output: string) => Promise<unknown>,
  root = os.tmpdir(),
): Promise<CombinedFile> {
  const dir = await mkdtemp(path.join(root, COMBINE_FOLDER_PREFIX));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const items: CombineFileItem[] = [];
    for (const [i, source] of sources.entries()) {
      const file = path.join(dir, `item-${i}.pdf`);
      await pipeline(await source.open(), createWriteStream(file, { flags: 'wx', mode: 0o600 }));
      items.push({ path: file, flattened: source.flattened });
    }
    const output = path.join(dir, 'combined.pdf');
    await build(items, output);
    await Promise.all(items.map((item) => rm(item.path, { force: true })));
    const { size } = await stat(output);
    return { path: output, size, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}
