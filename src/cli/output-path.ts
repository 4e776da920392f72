import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * Why an output file cannot be written where asked, checked before any work: its folder is missing or
 * is not a folder (a write would otherwise fail with ENOENT, read as "file not found"). Undefined: fine.
 */
export function outputFolderProblem(file: string): string | undefined {
  const folder = path.dirname(path.resolve(file));
  try {
    if (!statSync(folder).isDirectory()) return `cannot write ${file}: ${path.dirname(file)} is not a folder`;
  } catch {
    return `cannot write ${file}: the output folder ${path.dirname(file)} does not exist`;
  }
  return undefined;
}
