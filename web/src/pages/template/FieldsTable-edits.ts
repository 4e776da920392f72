// The fields table's unsaved edits: what a row's inputs hold, and the one PATCH body they become.
import type { SchemaField } from '../../api.js';
import type { components } from '../../generated/schema.js';

type FieldPatch = components['schemas']['FieldPatch'];
export type FieldsPatch = components['schemas']['TemplateFieldsPatch'];

/** A row's inputs as typed: text as the user sees it, parsed only when the patch is built. */
export interface Draft {
  name: string;
  description: string;
  /** the default as shown: '' for none, a boolean or number as its JSON text */
  default: string;
  required: boolean;
}

export function defaultText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function draftOf(f: SchemaField): Draft {
  return { name: f.name, description: f.description ?? '', default: defaultText(f.default), required: f.required };
}

/** The options a default is picked from (a select), or null when it is typed. */
export function defaultChoices(f: SchemaField): string[] | null {
  if (f.type === 'checkbox') return f.options && f.options.length > 1 ? ['false', ...f.options] : ['true', 'false'];
  if ((f.type === 'radio' || f.type === 'dropdown') && f.options && !f.pdfMeta.editable) return f.options;
  return null;
}

/** The default as render data carries it; the server checks it against the field and names any problem. */
function parseDefault(f: SchemaField, text: string): unknown {
  if (text === '') return null;
  if (f.type === 'checkbox' && (text === 'true' || text === 'false')) return text === 'true';
  if (f.type === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text);
  return text;
}

/** Only what the draft changes, or null when it changes nothing. An emptied key goes back to the analyser's. */
export function patchOf(f: SchemaField, d: Draft): FieldPatch | null {
  const p: FieldPatch = {};
  const name = d.name.trim();
  if (name !== f.name) p.name = name === '' ? null : name;
  if (d.description !== (f.description ?? '')) p.description = d.description === '' ? null : d.description;
  if (d.default !== defaultText(f.default)) p.default = parseDefault(f, d.default);
  if (d.required !== f.required) p.required = d.required;
  return Object.keys(p).length > 0 ? p : null;
}

/**
 * One request for every edited row, keyed by PDF name: a PDF name is always accepted and can never be
 * another field's key, so a row is named the same way however its key is being changed.
 */
export function buildPatch(fields: SchemaField[], drafts: Map<string, Draft>): FieldsPatch | null {
  const out: Record<string, FieldPatch> = {};
  for (const f of fields) {
    const d = drafts.get(f.pdfMeta.originalName);
    const p = d && patchOf(f, d);
    if (p) out[f.pdfMeta.originalName] = p;
  }
  return Object.keys(out).length > 0 ? { fields: out } : null;
}

/**
 * VALIDATION_ERROR's `details.errors[]` by row (PDF name). The server names each problem at
 * `fields.<key sent>` or `fields.<key sent>.<property>`, and a PDF name may itself hold dots, so the
 * longest key sent that prefixes the path wins; what names no row (a limit on the request) goes under ''.
 */
export function errorsByRow(
  details: Record<string, unknown> | undefined,
  sent: string[],
  fallback: string,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (row: string, message: string) => out.set(row, [...(out.get(row) ?? []), message]);
  const keys = [...sent].sort((a, b) => b.length - a.length);
  const list = Array.isArray(details?.errors) ? (details.errors as { field?: unknown; message?: unknown }[]) : [];
  for (const e of list) {
    const path = typeof e.field === 'string' ? e.field : '';
    const message = typeof e.message === 'string' ? e.message : fallback;
    const row = keys.find((k) => path === `fields.${k}` || path.startsWith(`fields.${k}.`));
    add(row ?? '', message);
  }
  if (list.length === 0) add('', fallback);
  return out;
}
