// A field's label by the rule of docs/decisions.md: its tooltip (/TU) when the author wrote one,
// else the caption printed beside it on the page, else none; and the key and option labels made from them
// (a key several fields share is made from where their labels differ, else prefixed with each one's
// section, else numbered).
import type { FoundLabel } from './find-labels.js';
import { suggestName, uniqueNames, withLabelTails, withSectionPrefixes } from './suggested-name.js';
import type { AnalysedField, LabelSource } from '../types.js';

/**
 * A tooltip with no letter in it ("[1]", "2.") numbers the field and does not name it; "undefined"
 * and "null" are a producer's bug (the DS-11 has thirty of them).
 */
const isWords = (label: string | null | undefined): label is string =>
  !!label && /\p{L}/u.test(label) && !/^(?:undefined|null)$/i.test(label);

/** The field needs its page caption: it has no tooltip, or buttons whose own words name its options. */
export function wantsPageText(field: Omit<AnalysedField, 'name'>): boolean {
  return !isWords(field.label) || field.type === 'radio' || (field.detail.onStates?.length ?? 0) > 1;
}

function optionLabels(field: AnalysedField, found: FoundLabel): string[] | undefined {
  if (field.type === 'dropdown') return field.detail.optionLabels ?? field.options;
  const values = field.type === 'radio' ? field.options : field.detail.onStates;
  if (!found.optionLabels || !values) return undefined;
  return values.map((v, i) => found.optionLabels?.[i] ?? v);
}

/** `fields` with label, labelSource, suggestedName and optionLabels set (found is parallel to fields). */
export function withLabels(fields: AnalysedField[], found: FoundLabel[]): AnalysedField[] {
  const labelled = fields.map((f, i): AnalysedField => {
    const caption = found[i]?.caption ?? null;
    const tooltip = isWords(f.label) ? f.label : null;
    const source: LabelSource = tooltip ? 'tooltip' : caption ? 'page' : 'none';
    const labels = optionLabels(f, found[i] ?? { caption: null });
    return {
      ...f,
      label: tooltip ?? caption,
      labelSource: source,
      ...(labels ? { optionLabels: labels } : {}),
    };
  });
  const labels = labelled.map((f) => f.label ?? null);
  const keys = uniqueNames(
    withSectionPrefixes(
      withLabelTails(
        labelled.map((f, i) => suggestName(labels[i], f.name)),
        labels,
      ),
      found.map((x) => x?.section),
    ),
  );
  return labelled.map((f, i) => ({ ...f, suggestedName: keys[i] }));
}
