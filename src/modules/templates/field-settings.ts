// A team's own settings of a template's fields (PATCH /templates/:id/fields), stored with the template
// as JSON keyed by each field's PDF name (`pdfMeta.originalName`), and the effective fields they make
// with the analysis. Pure: no I/O.
import type { AnalysedField } from '../../pdf/types.js';
import type { TemplateField } from '../render-data/template-field.js';
import { valueProblem } from '../render-data/validate-data.js';

/** One field's settings; an absent property keeps what the analyser found. */
export interface FieldSetting {
  /** the render key in place of the analyser's */
  name?: string;
  description?: string;
  /** overrides the PDF's Required flag */
  required?: boolean;
  default?: unknown;
  constant?: unknown;
  hidden?: true;
}

/** By `pdfMeta.originalName`; a null-prototype object. */
export type FieldSettings = Record<string, FieldSetting>;

/** Letters, digits, `_ . -`: a key that reads the same in JSON, URLs, code generators and shells. */
const FIELD_KEY_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;
const MAX_DESCRIPTION = 2000;
/** A default or constant is stored in the template row: 64 KiB of JSON is far above any form value. */
const MAX_VALUE_JSON = 64 * 1024;

export function parseFieldSettings(json: string | null | undefined): FieldSettings {
  const out: FieldSettings = Object.create(null);
  if (!json) return out;
  return Object.assign(out, JSON.parse(json) as FieldSettings);
}

function hasSettings(settings: FieldSettings): boolean {
  for (const _ in settings) return true;
  return false;
}

/** The analysis fields with the settings applied (the same array when there are none). */
export function effectiveFields(fields: AnalysedField[], settings: FieldSettings): TemplateField[] {
  if (!hasSettings(settings)) return fields;
  return fields.map((f) => {
    const s = settings[f.pdfMeta.originalName];
    if (!s) return f;
    const out: TemplateField = { ...f, name: s.name ?? f.name, required: s.required ?? f.required };
    if (s.description !== undefined) out.description = s.description;
    if (s.default !== undefined) out.default = s.default;
    if (s.constant !== undefined) out.constant = s.constant;
    if (s.hidden) out.hidden = true;
    return out;
  });
}

/** One bad setting: `field` is the dotted path in the request (`fields.<key>.default`). */
export interface SettingProblem {
  field: string;
  expected: string;
  received: string;
  message: string;
}

const show = (v: unknown) => {
  const json = JSON.stringify(v) ?? String(v);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
};

/**
 * Every problem of a set of settings against the fields they apply to, field by field in form order.
 * `pathOf` names a field in messages (the key the caller used). Checks: key syntax and uniqueness (a key
 * may not be another field's PDF name either, since PDF names stay accepted), descriptions, defaults and
 * constants (a value strict render data could carry: type, options, maxLength; dates in ISO 8601, which
 * every render locale reads alike) and rules that contradict each other.
 */
export function settingProblems(
  fields: AnalysedField[],
  settings: FieldSettings,
  pathOf: (originalName: string) => string,
): (SettingProblem & { original: string })[] {
  const problems: (SettingProblem & { original: string })[] = [];
  const effective = effectiveFields(fields, settings);
  const holders = new Map<string, string[]>();
  for (const f of effective) {
    const list = holders.get(f.name);
    if (list) list.push(f.pdfMeta.originalName);
    else holders.set(f.name, [f.pdfMeta.originalName]);
  }
  const pdfNames = new Set(fields.map((f) => f.pdfMeta.originalName));

  for (const f of effective) {
    const original = f.pdfMeta.originalName;
    const s = settings[original];
    if (!s) continue;
    const at = pathOf(original);
    const add = (prop: string, expected: string, received: string, message: string) =>
      problems.push({ field: `${at}.${prop}`, expected, received, message, original });
    if (s.name !== undefined) {
      if (!FIELD_KEY_PATTERN.test(s.name)) {
        add(
          'name',
          '1-100 letters, digits, "_", "." or "-"',
          show(s.name),
          `Key ${show(s.name)} of field "${original}" may hold only 1-100 letters, digits, "_", "." and "-"`,
        );
      } else if (s.name !== original && pdfNames.has(s.name)) {
        add(
          'name',
          "a key that is not another field's PDF name",
          show(s.name),
          `Key ${show(s.name)} of field "${original}" is the PDF name of another field, which stays a key of its own`,
        );
      } else if ((holders.get(s.name)?.length ?? 0) > 1) {
        const others = holders.get(s.name)!.filter((o) => o !== original);
        add(
          'name',
          'a key no other field has',
          show(s.name),
          `Key ${show(s.name)} of field "${original}" is also the key of ${others.map((o) => `"${o}"`).join(', ')}`,
        );
      }
    }
    if (s.description !== undefined && Array.from(s.description).length > MAX_DESCRIPTION) {
      add(
        'description',
        `at most ${MAX_DESCRIPTION} characters`,
        `${Array.from(s.description).length} characters`,
        `The description of field "${original}" is longer than ${MAX_DESCRIPTION} characters`,
      );
    }
    for (const prop of ['default', 'constant'] as const) {
      const value = s[prop];
      if (value === undefined) continue;
      if (f.pdfMeta.readOnly) {
        add(
          prop,
          'no value (the field is read-only)',
          show(value),
          `Field "${original}" is read-only: it takes no ${prop}`,
        );
        continue;
      }
      const size = JSON.stringify(value).length;
      if (size > MAX_VALUE_JSON) {
        add(
          prop,
          `at most ${MAX_VALUE_JSON} bytes of JSON`,
          `${size} bytes`,
          `The ${prop} of field "${original}" is too large`,
        );
        continue;
      }
      const bad = valueProblem(f, value) ?? isoDateProblem(f, value);
      if (bad)
        add(prop, bad.details.expected, bad.details.received, `The ${prop} of field "${original}": ${bad.message}`);
    }
    if (s.default !== undefined && s.constant !== undefined) {
      add(
        'constant',
        'a constant or a default, not both',
        'both',
        `Field "${original}" cannot have a default and a constant`,
      );
    }
    if (s.hidden && s.constant !== undefined) {
      add(
        'hidden',
        'a field that is drawn or hidden, not both',
        'hidden with a constant',
        `Field "${original}" cannot be hidden and have a constant`,
      );
    }
    if (s.required && (s.hidden || f.pdfMeta.readOnly)) {
      add(
        'required',
        'a field that can be filled',
        s.hidden ? 'a hidden field' : 'a read-only field',
        `Field "${original}" cannot be required: it is never filled`,
      );
    }
  }
  return problems;
}

const ISO_DATE_START = /^\s*\d{4}-\d{2}-\d{2}/;

/** A date default is read at every render in that render's locale: only ISO 8601 reads the same in all. */
function isoDateProblem(f: AnalysedField, value: unknown) {
  if (f.type !== 'date' || value === null || (typeof value === 'string' && ISO_DATE_START.test(value)))
    return undefined;
  return {
    details: { expected: 'date in ISO 8601 (2024-03-05)', received: show(value) },
    message: `expects a date in ISO 8601 (2024-03-05), received ${show(value)}`,
  };
}
