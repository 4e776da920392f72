// pdftk as a whole process per render (`pdftk in.pdf fill_form data.xfdf output out.pdf [flatten]`),
// the usual self-hosted baseline. Its XFDF carries the same values our engine gets (already
// formatted by validateData), keyed by the fully qualified PDF field name.
import { execFile, execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AnalysedField, FillValue } from '../src/pdf/types.js';
import { timeIt, type Summary, type TimeOptions } from './stats.js';

const run = promisify(execFile);

/** pdftk's version line, or null when it is not installed. */
export function pdftkVersion(): string | null {
  try {
    return (
      execFileSync('pdftk', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
        .split('\n')
        .find((l) => l.trim())
        ?.trim() ?? 'pdftk'
    );
  } catch {
    return null;
  }
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The XFDF values of one field: appearance state names for buttons, export values for choices. */
function xfdfValues(field: AnalysedField | undefined, value: FillValue): string[] {
  switch (value.kind) {
    case 'text':
      return [value.text];
    case 'check':
      return [value.checked ? (field?.detail.onStates?.[0] ?? 'Yes') : 'Off'];
    case 'choice': {
      if (field?.type !== 'radio') return [value.value];
      const i = field.options?.indexOf(value.value) ?? -1;
      return [(i >= 0 ? field.detail.optionStates?.[i] : undefined) ?? value.value];
    }
    case 'choices':
      return value.values;
    default:
      return []; // clear / image: pdftk has no equivalent
  }
}

export function toXfdf(fields: AnalysedField[], values: Record<string, FillValue>): string {
  const byName = new Map(fields.map((f) => [f.pdfMeta.originalName, f]));
  const rows = Object.entries(values).flatMap(([name, v]) => {
    const vals = xfdfValues(byName.get(name), v);
    if (!vals.length) return [];
    return [`<field name="${esc(name)}">${vals.map((x) => `<value>${esc(x)}</value>`).join('')}</field>`];
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<xfdf xmlns="http://ns.adobe.com/xfdf/" xml:space="preserve">\n<fields>\n${rows.join('\n')}\n</fields>\n</xfdf>\n`;
}

export interface PdftkResult {
  fill: Summary;
  flatten: Summary;
  fillBytes: Uint8Array;
  flattenBytes: Uint8Array;
}

export async function benchPdftk(
  templatePath: string,
  xfdf: string,
  workDir: string,
  opts: TimeOptions,
): Promise<PdftkResult> {
  const data = path.join(workDir, 'data.xfdf');
  await writeFile(data, xfdf);
  const outFill = path.join(workDir, 'pdftk-fill.pdf');
  const outFlat = path.join(workDir, 'pdftk-flatten.pdf');
  const fill = () => run('pdftk', [templatePath, 'fill_form', data, 'output', outFill]);
  const flatten = () => run('pdftk', [templatePath, 'fill_form', data, 'output', outFlat, 'flatten']);
  return {
    fill: await timeIt(fill, opts),
    flatten: await timeIt(flatten, opts),
    fillBytes: await readFile(outFill),
    flattenBytes: await readFile(outFlat),
  };
}
