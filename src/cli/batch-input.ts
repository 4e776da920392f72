// The rows of `formcast batch`: one data object per JSONL line, or per CSV record after a header
// row of field names. CSV cells are text, so they are converted with the template's schema into the
// JSON types render data takes (the conversions are in docs/decisions.md): the API's own validation
// then judges them exactly as it judges JSON.
import { CsvError, parse } from 'csv-parse/sync';
import type { AnalysedField } from '../pdf/types.js';

export interface Row {
  /** 1-based position among the data rows (the output file is named after it) */
  row: number;
  /** 1-based line of the file where the row is (a CSV record spanning lines: its last line) */
  line: number;
  /** the render data, or why the row could not be read */
  data?: Record<string, unknown>;
  error?: string;
}

/** Cells a checkbox reads as checked / unchecked (case-insensitive, trimmed). */
const CHECKED = new Set(['true', 'yes', 'y', 'x', '1', 'on', 'checked']);
const UNCHECKED = new Set(['false', 'no', 'n', '0', 'off', 'unchecked']);
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

export function isCsv(path: string): boolean {
  return /\.csv$/i.test(path);
}

/** JSONL: every non-blank line is one JSON object. */
export function jsonlRows(text: string): Row[] {
  const rows: Row[] = [];
  text.split(/\r?\n/).forEach((source, index) => {
    if (source.trim() === '') return;
    const row = rows.length + 1;
    const line = index + 1;
    try {
      const data: unknown = JSON.parse(source);
      if (typeof data !== 'object' || data === null || Array.isArray(data))
        rows.push({ row, line, error: 'the line is not a JSON object' });
      else rows.push({ row, line, data: data as Record<string, unknown> });
    } catch (err) {
      rows.push({ row, line, error: `the line is not valid JSON (${(err as Error).message})` });
    }
  });
  return rows;
}

type CsvRecord = { line: number; record: string[] } | { line: number; error: string };

/**
 * The file's records, each with its (last) line. A record the parser refuses (a stray quote, one never
 * closed) becomes an error on the line where it starts, and parsing starts again on the next line, so
 * one bad row does not lose the others.
 */
function csvRecords(text: string): CsvRecord[] {
  const lines = text.split(/\r?\n/);
  const out: CsvRecord[] = [];
  let start = 0; // 0-based index of the first line of this attempt
  while (start < lines.length) {
    const got: CsvRecord[] = [];
    const from = start;
    try {
      parse(lines.slice(from).join('\n'), {
        bom: from === 0,
        info: true,
        relax_column_count: true,
        skip_empty_lines: true,
        // with `info` the parser hands each record with its info (csv-parse's types miss that)
        on_record: ((r: { record: string[]; info: { lines: number } }) => {
          got.push({ record: r.record, line: from + r.info.lines });
          return r;
        }) as never,
      });
      out.push(...got);
      break;
    } catch (err) {
      if (!(err instanceof CsvError)) throw err;
      out.push(...got);
      let bad = (got.at(-1)?.line ?? from) + 1; // 1-based: the line after the last good record
      while (bad <= lines.length && lines[bad - 1].trim() === '') bad++;
      out.push({ line: bad, error: `the row is not valid CSV (${err.message.replace(/ at line \d+/, '')})` });
      start = bad;
    }
  }
  return out;
}

/** CSV with a header row of field names (schema `name` or PDF name); cells converted per field type. */
export function csvRows(text: string, fields: AnalysedField[]): Row[] {
  const records = csvRecords(text);
  if (records.length === 0) return [];
  const first = records[0];
  if ('error' in first)
    throw Object.assign(new Error(`the header row (line ${first.line}): ${first.error}`), { code: 'CSV_HEADER' });
  const header = first.record.map((h) => h.trim());
  const byKey = new Map<string, AnalysedField>();
  // The same lookup as validation: a schema name wins over another field's PDF name.
  for (const f of fields) byKey.set(f.pdfMeta.originalName, f);
  for (const f of fields) byKey.set(f.name, f);
  return records.slice(1).map((entry, index) => {
    const row = index + 1;
    const line = entry.line;
    if ('error' in entry) return { row, line, error: entry.error };
    const { record } = entry;
    if (record.length > header.length)
      return { row, line, error: `the row has ${record.length} cells, the header ${header.length}` };
    const data: Record<string, unknown> = Object.create(null);
    header.forEach((key, i) => {
      const cell = record[i] ?? '';
      if (key === '' || cell === '') return; // an empty cell leaves the field as the template has it
      data[key] = cellValue(cell, byKey.get(key));
    });
    return { row, line, data };
  });
}

/**
 * A CSV cell as render data for its field: checkboxes take true/false words, numbers a number,
 * multi-select lists ";"-separated options (a cell that is itself an option stays one); everything
 * else stays text. A cell that does not convert is passed as text, so validation names the problem.
 */
export function cellValue(cell: string, field: AnalysedField | undefined): unknown {
  if (!field) return cell;
  const word = cell.trim().toLowerCase();
  switch (field.type) {
    case 'checkbox':
      // A checkbox with several on-states takes the state's name, as in JSON.
      if (field.options?.length) return UNCHECKED.has(word) ? false : cell.trim();
      if (CHECKED.has(word)) return true;
      if (UNCHECKED.has(word)) return false;
      return cell;
    case 'number':
      return NUMBER.test(cell.trim()) ? Number(cell.trim()) : cell;
    case 'dropdown':
      if (field.detail.multiSelect && !field.options?.includes(cell) && cell.includes(';'))
        return cell.split(';').map((v) => v.trim());
      return cell;
    default:
      return cell;
  }
}
