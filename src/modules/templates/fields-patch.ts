// PATCH /templates/:id/fields as a pure step: the template's fields and settings and the request in,
// the new settings or every problem out. Nothing is saved unless the whole request is good.
import type { AnalysedField } from '../../pdf/types.js';
import {
  effectiveFields,
  settingProblems,
  type FieldSetting,
  type FieldSettings,
  type SettingProblem,
} from './field-settings.js';

/** One field's changes: a property set to null goes back to what the analyser found. */
export interface FieldPatch {
  name?: string | null;
  description?: string | null;
  required?: boolean | null;
  default?: unknown;
  constant?: unknown;
  hidden?: boolean;
}

export interface FieldsPatch {
  /** by the field's current key or its PDF name */
  fields?: Record<string, FieldPatch>;
  /** every field with a suggestedName takes it, unless another setting of the same call names it */
  useSuggestedNames?: boolean;
}

export type PatchOutcome =
  | { ok: true; settings: FieldSettings; changed: string[] }
  | { ok: false; problems: SettingProblem[] };

const quoteKey = (key: string) => JSON.stringify(key.length > 60 ? `${key.slice(0, 57)}...` : key);

function merged(current: FieldSetting | undefined, p: FieldPatch, analysed: AnalysedField): FieldSetting | undefined {
  const s: FieldSetting = { ...current };
  if (p.name === null || p.name === analysed.name) delete s.name;
  else if (p.name !== undefined) s.name = p.name;
  if (p.description === null || p.description === '') delete s.description;
  else if (p.description !== undefined) s.description = p.description;
  if (p.required === null || p.required === analysed.required) delete s.required;
  else if (p.required !== undefined) s.required = p.required;
  if (p.default === null) delete s.default;
  else if (p.default !== undefined) s.default = p.default;
  if (p.constant === null) delete s.constant;
  else if (p.constant !== undefined) s.constant = p.constant;
  if (p.hidden === false) delete s.hidden;
  else if (p.hidden === true) s.hidden = true;
  return Object.keys(s).length > 0 ? s : undefined;
}

/**
 * The settings after `patch`, or every problem with it: unknown keys, two keys for one field, too many
 * changes, and whatever settingProblems finds in the result.
 */
export function applyFieldsPatch(
  fields: AnalysedField[],
  current: FieldSettings,
  patch: FieldsPatch,
  maxChanges: number,
): PatchOutcome {
  const entries = Object.entries(patch.fields ?? {});
  if (entries.length > maxChanges) {
    return {
      ok: false,
      problems: [
        {
          field: 'fields',
          expected: `at most ${maxChanges} fields per request`,
          received: `${entries.length} fields`,
          message: `One request changes at most ${maxChanges} fields; this one has ${entries.length}`,
        },
      ],
    };
  }
  const problems: SettingProblem[] = [];
  const byKey = new Map<string, AnalysedField>();
  const byOriginal = new Map<string, AnalysedField>();
  const now = effectiveFields(fields, current);
  fields.forEach((f, i) => {
    byKey.set(now[i].name, f);
    byOriginal.set(f.pdfMeta.originalName, f);
  });

  // 1. which field each key names (the current key first, as render data reads keys)
  const targets = new Map<AnalysedField, { key: string; patch: FieldPatch }>();
  for (const [key, p] of entries) {
    const field = byKey.get(key) ?? byOriginal.get(key);
    const at = `fields.${key}`;
    if (!field) {
      problems.push({
        field: at,
        expected: "a field's key or PDF name",
        received: 'unknown field',
        message: `Unknown field ${quoteKey(key)}`,
      });
      continue;
    }
    const earlier = targets.get(field);
    if (earlier) {
      problems.push({
        field: at,
        expected: 'one entry per field',
        received: `entries under both ${quoteKey(earlier.key)} and ${quoteKey(key)}`,
        message: `Field "${field.pdfMeta.originalName}" is changed twice, as ${quoteKey(earlier.key)} and ${quoteKey(key)}`,
      });
      continue;
    }
    targets.set(field, { key, patch: p });
  }

  // 2. the new settings: suggested names first, then each field's own changes
  const next: FieldSettings = Object.assign(Object.create(null), current);
  if (patch.useSuggestedNames) adoptSuggestedNames(fields, next, targets);
  for (const [field, { patch: p }] of targets) {
    const s = merged(next[field.pdfMeta.originalName], p, field);
    if (s) next[field.pdfMeta.originalName] = s;
    else delete next[field.pdfMeta.originalName];
  }

  // 3. the result must hold together. Settings the call left alone were good when saved: only the
  // fields it changes are checked (a new key that clashes with another field's is the new key's problem).
  const changed = fields
    .map((f) => f.pdfMeta.originalName)
    .filter((o) => JSON.stringify(current[o] ?? null) !== JSON.stringify(next[o] ?? null));
  const touched = new Set(changed);
  const keyOf = new Map([...targets].map(([f, t]) => [f.pdfMeta.originalName, t.key]));
  const currentKey = new Map(fields.map((f, i) => [f.pdfMeta.originalName, now[i].name]));
  for (const p of settingProblems(fields, next, (o) => `fields.${keyOf.get(o) ?? currentKey.get(o) ?? o}`)) {
    if (!touched.has(p.original)) continue;
    const { original: _, ...problem } = p;
    problems.push(problem);
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, settings: next, changed };
}

/**
 * Every field with a suggestedName takes it as its key, except where the name is taken by a key this
 * call keeps: one set explicitly in the call, or the key of a field that has no suggestion and is not
 * renamed. A field whose own entry sets `name` keeps that.
 */
function adoptSuggestedNames(
  fields: AnalysedField[],
  next: FieldSettings,
  targets: Map<AnalysedField, { key: string; patch: FieldPatch }>,
): void {
  const kept = new Set<string>();
  const effective = effectiveFields(fields, next);
  fields.forEach((f, i) => {
    const explicit = targets.get(f)?.patch.name;
    if (typeof explicit === 'string') kept.add(explicit);
    else if (explicit === undefined && !f.suggestedName) kept.add(effective[i].name);
    kept.add(f.pdfMeta.originalName);
  });
  for (const f of fields) {
    const suggested = f.suggestedName;
    if (!suggested || targets.get(f)?.patch.name !== undefined) continue;
    if (kept.has(suggested) && suggested !== f.pdfMeta.originalName) continue;
    const s: FieldSetting = { ...next[f.pdfMeta.originalName] };
    if (suggested === f.name) delete s.name;
    else s.name = suggested;
    if (Object.keys(s).length > 0) next[f.pdfMeta.originalName] = s;
    else delete next[f.pdfMeta.originalName];
  }
}
