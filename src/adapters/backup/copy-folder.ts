import { copyFile, mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';

export interface FolderCopy {
  files: number;
  bytes: number;
}

/**
 * Copy a files folder that the server keeps writing to. Files are written to a `.tmp` name and
 * renamed, so a finished file never changes: unfinished `.tmp` files are skipped, and a file deleted
 * while we copy (retention, a deleted render) is simply not in the copy.
 */
export async function copyLiveFolder(from: string, to: string): Promise<FolderCopy> {
  const total: FolderCopy = { files: 0, bytes: 0 };
  const entries = await readdir(from, { withFileTypes: true }).catch(ignoreMissing);
  if (!entries) return total;
  await mkdir(to, { recursive: true });
  for (const entry of entries) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      const sub = await copyLiveFolder(source, target);
      total.files += sub.files;
      total.bytes += sub.bytes;
    } else if (entry.isFile() && !entry.name.endsWith('.tmp')) {
      const copied = await copyFile(source, target).then(() => true, ignoreMissing);
      if (!copied) continue;
      total.files += 1;
      total.bytes += (await stat(target)).size;
    }
  }
  return total;
}

function ignoreMissing(err: NodeJS.ErrnoException): undefined {
  if (err.code === 'ENOENT') return undefined;
  throw err;
}
