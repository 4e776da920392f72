// The same render data for every peer: our validated values (keyed by the PDF's qualified field names,
// already formatted), written as each peer's API takes them, and the probes that check an output holds them.
import type { AnalysedField, FillValue, TemplateAnalysis } from '../src/pdf/types.js';

/** What a peer sets on one field: text, a button state (check box or radio widget), or choices. */
export type PeerValue =
  | { kind: 'text'; text: string }
  | { kind: 'check'; checked: boolean; state?: string }
  | { kind: 'choice'; value: string }
  | { kind: 'choices'; values: string[] };

function peerValue(field: AnalysedField | undefined, v: FillValue): PeerValue | undefined {
  switch (v.kind) {
    case 'text':
      return { kind: 'text', text: v.text };
    case 'check': {
      const states = field?.detail.onStates ?? [];
      return { kind: 'check', checked: v.checked, state: states.length > 1 ? states[0] : undefined };
    }
    case 'choice': {
      if (field?.type !== 'radio') return { kind: 'choice', value: v.value };
      // a radio button is the widget whose on state is the chosen option's
      const i = field.options?.indexOf(v.value) ?? -1;
      return { kind: 'check', checked: true, state: (i >= 0 ? field.detail.optionStates?.[i] : undefined) ?? v.value };
    }
    case 'choices':
      return { kind: 'choices', values: v.values };
    default:
      return undefined; // images and clears: no peer takes them the same way
  }
}

export function peerValues(analysis: TemplateAnalysis, values: Record<string, FillValue>): Record<string, PeerValue> {
  const byName = new Map(analysis.fields.map((f) => [f.pdfMeta.originalName, f]));
  const out: Record<string, PeerValue> = {};
  for (const [name, v] of Object.entries(values)) {
    const p = peerValue(byName.get(name), v);
    if (p) out[name] = p;
  }
  return out;
}

const UNICODE = ['مرحبا بالعالم', '안녕하세요 세계', 'Zoë Łódź Привет', '東京都 渋谷区', 'שלום 42'];

/** The data with every free-text field (no format, no comb cells) set to text in several scripts. */
export function unicodeData(analysis: TemplateAnalysis, data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  analysis.fields.forEach((f, i) => {
    if (f.type !== 'text' || f.pdfMeta.readOnly || f.detail.format || f.detail.comb || !(f.name in out)) return;
    out[f.name] = Array.from(UNICODE[i % UNICODE.length])
      .slice(0, f.maxLength ?? 100)
      .join('');
  });
  return out;
}

/**
 * What a reader must find in the output's text for it to hold the values: each text value without its
 * whitespace, cut to 16 characters (comb cells and right-to-left text left out: extraction may split or
 * reorder them), at most 60 per form.
 */
export function probes(analysis: TemplateAnalysis, values: Record<string, FillValue>): string[] {
  const out: string[] = [];
  for (const f of analysis.fields) {
    const v = values[f.pdfMeta.originalName];
    if (v?.kind !== 'text' || f.detail.comb || /[\u0590-\u06ff]/u.test(v.text)) continue;
    const first = v.text.split('\n')[0].replace(/\s+/g, '');
    if (first.length >= 3) out.push(Array.from(first).slice(0, 16).join(''));
    if (out.length >= 60) break;
  }
  return out;
}

/** Share of probes found in the text a reader extracted (whitespace ignored). */
export function heldShare(text: string, words: string[]): number {
  if (!words.length) return NaN;
  const flat = text.replace(/\s+/g, '');
  return words.filter((w) => flat.includes(w)).length / words.length;
}
