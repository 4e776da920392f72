// Locates the shared PDF test corpus (../shared/corpus from the repo root, or $CORPUS_DIR) and
// loads its manifest. Tests skip visibly when the corpus is absent.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ManifestField {
  fullName: string;
  ftype: 'Tx' | 'Btn' | 'Ch' | 'Sig';
  kind: 'text' | 'checkbox' | 'radio' | 'pushbutton' | 'combo' | 'listbox' | 'signature';
  flags: Record<string, boolean>;
  fieldFlags: number;
  maxLen: number | null;
  options: (string | null)[] | null;
  optionDisplay?: string[];
  btnOpt?: string[];
  page: number | null;
  formatAction: string | null;
  widgetCount: number;
  inAcroFormFields: boolean;
  value?: string | string[];
}

export interface ManifestFile {
  file: string;
  pageCount: number | null;
  isEncrypted: boolean;
  hasXfa: boolean;
  validAcroForm: boolean;
  fieldCount: number;
  tags: string[];
  fields: ManifestField[];
  [key: string]: unknown;
}

export interface Manifest {
  schemaVersion: number;
  files: ManifestFile[];
}

/** The corpus directory, or null when it is not there. */
export function corpusDir(): string | null {
  const dir = process.env.CORPUS_DIR
    ? path.resolve(process.env.CORPUS_DIR)
    : path.resolve(repoRoot, '../shared/corpus');
  return fs.existsSync(path.join(dir, 'manifest.json')) ? dir : null;
}

let cached: Manifest | undefined;

/** The parsed manifest.json (throws when the corpus is absent; check corpusDir() first). */
export function loadManifest(): Manifest {
  const dir = corpusDir();
  if (!dir) throw new Error('PDF corpus not found (set CORPUS_DIR)');
  cached ??= JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  return cached;
}

/** Absolute paths of every PDF in the corpus's pdfs/ folder, sorted; [] when absent. */
export function corpusFiles(): string[] {
  const dir = corpusDir();
  if (!dir) return [];
  const pdfs = path.join(dir, 'pdfs');
  return fs
    .readdirSync(pdfs)
    .filter((f) => f.toLowerCase().endsWith('.pdf'))
    .sort()
    .map((f) => path.join(pdfs, f));
}

/** The manifest entry for an absolute corpus file path, if any. */
export function manifestEntry(file: string): ManifestFile | undefined {
  const base = path.basename(file);
  return loadManifest().files.find((f) => path.basename(f.file) === base);
}
