// The floor under any render: the engine library's own load+save of the unchanged template (what a
// naive "parse then serialise" costs), and a plain byte copy to disk (what any service must pay).
// @cantoo/pdf-lib is imported here only; src/ reaches it through src/pdf/ alone.
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import { timeIt, type Summary, type TimeOptions } from './stats.js';

export interface FloorResult {
  loadSave: Summary;
  copyFile: Summary;
  bufferWrite: Summary;
  loadSaveBytes: Uint8Array;
}

export async function benchFloor(
  templatePath: string,
  template: Uint8Array,
  workDir: string,
  opts: TimeOptions,
): Promise<FloorResult> {
  const loadSave = async () =>
    (await PDFDocument.load(template, { ignoreEncryption: true, updateMetadata: false })).save();
  const loadSaveBytes = await loadSave();
  const out = path.join(workDir, 'floor-copy.pdf');
  return {
    loadSave: await timeIt(loadSave, opts),
    copyFile: await timeIt(() => copyFile(templatePath, out), opts),
    bufferWrite: await timeIt(() => writeFile(out, Buffer.from(template)), opts),
    loadSaveBytes,
  };
}
