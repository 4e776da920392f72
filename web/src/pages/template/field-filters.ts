// The fields table's search and filters: pure functions over the schema's fields, no Preact.
import type { SchemaField } from '../../api.js';

export type YesNo = 'any' | 'yes' | 'no';

export interface FieldFilters {
  search: string;
  type: SchemaField['type'] | 'any';
  page: number | 'any';
  required: YesNo;
  computed: YesNo;
  unnamedOnly: boolean;
}

export const NO_FILTERS: FieldFilters = {
  search: '',
  type: 'any',
  page: 'any',
  required: 'any',
  computed: 'any',
  unnamedOnly: false,
};

export function isFiltered(f: FieldFilters): boolean {
  return (Object.keys(NO_FILTERS) as (keyof FieldFilters)[]).some((k) => f[k] !== NO_FILTERS[k]);
}

/**
 * Filled by the form rather than by render data. The schema has no `computed` flag until issue 23 lands
 * (contract: "computed: true"); until then the one hint it carries is the PDF's read-only flag, which is
 * how forms mark their calculated totals. The flag is read first so the filter follows it once it exists.
 */
export function isComputed(f: SchemaField): boolean {
  const flag = (f as SchemaField & { computed?: boolean }).computed;
  return flag ?? f.pdfMeta.readOnly === true;
}

/**
 * A key nobody chose yet: still the PDF's own name (no team key, no analyser rewrite) while a better
 * name is offered (the suggested name differs), or a field with no label at all to tell a reader what it is.
 */
export function isUnnamed(f: SchemaField): boolean {
  if (f.labelSource === 'none' || !f.label) return true;
  return f.name === f.pdfMeta.originalName && f.suggestedName !== f.name;
}

/** Lower-cased text a search matches: key, PDF name, label, description. Built once per schema. */
export function searchText(f: SchemaField): string {
  return [f.name, f.pdfMeta.originalName, f.label ?? '', f.description ?? ''].join('\n').toLowerCase();
}

function yesNo(want: YesNo, value: boolean): boolean {
  return want === 'any' || (want === 'yes') === value;
}

/** The fields that pass every filter, in schema order; `texts[i]` is searchText(fields[i]). */
export function filterFields(fields: SchemaField[], texts: string[], filters: FieldFilters): SchemaField[] {
  const words = filters.search.toLowerCase().split(/\s+/).filter(Boolean);
  return fields.filter(
    (f, i) =>
      (filters.type === 'any' || f.type === filters.type) &&
      (filters.page === 'any' || fieldPages(f).includes(filters.page)) &&
      yesNo(filters.required, f.required) &&
      yesNo(filters.computed, isComputed(f)) &&
      (!filters.unnamedOnly || isUnnamed(f)) &&
      words.every((w) => texts[i].includes(w)),
  );
}

/** Every page a field has a widget on (a field may repeat on several pages). */
export function fieldPages(f: SchemaField): number[] {
  const widgets = f.pdfMeta.widgets;
  return widgets ? [...new Set(widgets.map((w) => w.page))] : [f.pdfMeta.page];
}

/** The choices the filter menus offer: the types and pages this template has. */
export function filterChoices(fields: SchemaField[]) {
  const types = [...new Set(fields.map((f) => f.type))].sort();
  const pages = [...new Set(fields.flatMap(fieldPages))].sort((a, b) => a - b);
  return { types, pages };
}

/** How many keys `{ useSuggestedNames: true }` would change (the server may keep a few whose name is taken). */
export function suggestedRenames(fields: SchemaField[]): { from: string; to: string }[] {
  return fields.filter((f) => f.suggestedName !== f.name).map((f) => ({ from: f.name, to: f.suggestedName }));
}
