// Independent checks of our PDFs with qpdf, pdftk and poppler, run through execFile (no shell).
// Tests that need a tool call hasTool() first and skip visibly when it is missing.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const MAX_BUFFER = 64 * 1024 * 1024;
const available = new Map<string, boolean>();

/** True when `name` (qpdf, pdftk, pdftotext, pdftoppm) is on PATH. */
export function hasTool(name: string): boolean {
  let ok = available.get(name);
  if (ok === undefined) {
    try {
      execFileSync('sh', ['-c', 'command -v "$1"', 'sh', name], { stdio: 'ignore' });
      ok = true;
    } catch {
      ok = false;
    }
    available.set(name, ok);
  }
  return ok;
}

export interface QpdfCheck {
  /** qpdf's exit code: 0 clean, 3 warnings only, 2 errors */
  code: number;
  ok: boolean;
  warnings: string[];
  output: string;
}

export async function qpdfCheck(path: string): Promise<QpdfCheck> {
  try {
    const { stdout, stderr } = await run('qpdf', ['--check', path], { maxBuffer: MAX_BUFFER });
    return { code: 0, ok: true, warnings: [], output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    const warnings = output.split('\n').filter((l) => /WARNING/i.test(l));
    return { code: typeof e.code === 'number' ? e.code : -1, ok: false, warnings, output };
  }
}

/**
 * Whether pdftk-java cannot report this radio option: it lists /Opt values once, so of buttons
 * sharing an export value (listed "v", "v (2)"... by the analyser) it reports the first and "Off"
 * for the others.
 */
export function pdftkCannotReport(field: { type: string; options?: string[] }, option: string): boolean {
  const m = / \((\d+)\)$/.exec(option);
  return field.type === 'radio' && !!m && !!field.options?.includes(option.slice(0, m.index));
}

export interface PdftkField {
  name: string;
  type: string;
  /** FieldValue lines (several for multi-select list boxes) */
  values: string[];
  flags: number;
}

/** `pdftk FILE dump_data_fields_utf8`, parsed. */
export async function pdftkFields(path: string): Promise<PdftkField[]> {
  const { stdout } = await run('pdftk', [path, 'dump_data_fields_utf8'], { maxBuffer: MAX_BUFFER });
  const fields: PdftkField[] = [];
  for (const block of stdout.split(/^---\s*$/m)) {
    const f: PdftkField = { name: '', type: '', values: [], flags: 0 };
    for (const line of block.split('\n')) {
      const m = /^(\w+): ?(.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === 'FieldName') f.name = m[2];
      else if (m[1] === 'FieldType') f.type = m[2];
      else if (m[1] === 'FieldValue') f.values.push(m[2]);
      else if (m[1] === 'FieldFlags') f.flags = Number(m[2]);
    }
    if (f.name) fields.push(f);
  }
  return fields;
}

/**
 * Text of the whole document (`pdftotext -enc UTF-8 FILE -`). `raw` keeps content-stream order,
 * so text drawn by one flattened widget stays together even when columns interleave on the page.
 */
export async function pdftotext(path: string, opts: { raw?: boolean } = {}): Promise<string> {
  const args = ['-enc', 'UTF-8', ...(opts.raw ? ['-raw'] : []), path, '-'];
  const { stdout } = await run('pdftotext', args, { maxBuffer: MAX_BUFFER });
  return stdout;
}

export interface TextLine {
  text: string;
  /** page coordinates with the origin at the top left, as poppler reports them */
  xMin: number;
  yMin: number;
  xMax: number;
  yMax: number;
}

/** Lines of text with their boxes on `page` (`pdftotext -bbox-layout`), in reading order. */
export async function pdftotextLines(path: string, page = 1): Promise<TextLine[]> {
  const { stdout } = await run(
    'pdftotext',
    ['-enc', 'UTF-8', '-bbox-layout', '-f', String(page), '-l', String(page), path, '-'],
    { maxBuffer: MAX_BUFFER },
  );
  const lines: TextLine[] = [];
  const attr = (tag: string, name: string) => Number(new RegExp(`${name}="([-\\d.]+)"`).exec(tag)![1]);
  const unescapeXml = (s: string) =>
    s
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
  for (const m of stdout.matchAll(/<line ([^>]*)>([\s\S]*?)<\/line>/g)) {
    const words = [...m[2].matchAll(/<word [^>]*>([\s\S]*?)<\/word>/g)].map((w) => unescapeXml(w[1]));
    lines.push({
      text: words.join(' '),
      xMin: attr(m[1], 'xMin'),
      yMin: attr(m[1], 'yMin'),
      xMax: attr(m[1], 'xMax'),
      yMax: attr(m[1], 'yMax'),
    });
  }
  return lines;
}

/**
 * The objects a reader can reach in a PDF, as text: qpdf rewrites only what the trailer reaches
 * (QDF, streams uncompressed). Whatever active content remains in it, a viewer could run.
 */
export async function reachableObjects(file: string): Promise<string> {
  const out = `${file}.qdf`;
  await qpdf(['--password=', '--qdf', '--object-streams=disable', '--stream-data=uncompress', file, out]);
  return (await import('node:fs')).readFileSync(out, 'latin1');
}

/** qpdf's standard output; exit code 3 only means qpdf warned about the file, and still counts as done. */
export async function qpdf(args: string[]): Promise<string> {
  const r = await run('qpdf', args, { maxBuffer: MAX_BUFFER }).catch((e: { code?: number; stdout?: string }) => {
    if (e.code === 3) return { stdout: e.stdout ?? '' };
    throw e;
  });
  return r.stdout;
}
