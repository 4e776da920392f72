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

/**
 * The data with every free-text field (no format, no comb cells) set to text in several scripts, each
 * ending with the field's index: five strings repeated, a reader found a value drawn in any other field.
 */
export function unicodeData(analysis: TemplateAnalysis, data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  analysis.fields.forEach((f, i) => {
    if (f.type !== 'text' || f.pdfMeta.readOnly || f.detail.format || f.detail.comb || !(f.name in out)) return;
    out[f.name] = Array.from(`${UNICODE[i % UNICODE.length]} ${i}`)
      .slice(0, f.maxLength ?? 100)
      .join('');
  });
  return out;
}

/** A value a reader must find in an output, and the names its field goes by in render warnings. */
export interface Probe {
  word: string;
  names: string[];
}

/**
 * What a reader must find in the output's text for it to hold the values: each text value without its
 * whitespace, cut to 16 characters (comb cells and right-to-left text left out: extraction may split or
 * reorder them), at most 60 per form.
 */
export function probes(analysis: TemplateAnalysis, values: Record<string, FillValue>): Probe[] {
  const out: Probe[] = [];
  for (const f of analysis.fields) {
    const v = values[f.pdfMeta.originalName];
    if (v?.kind !== 'text' || f.detail.comb || /[\u0590-\u06ff]/u.test(v.text)) continue;
    const first = v.text.split('\n')[0].replace(/\s+/g, '');
    if (first.length >= 3)
      out.push({ word: Array.from(first).slice(0, 16).join(''), names: [f.name, f.pdfMeta.originalName] });
    if (out.length >= 60) break;
  }
  return out;
}

/**
 * The probes whose field our render reported as cut ("does not fit the field and is cut off"): a value
 * too long for a box with a fixed font size is cut after its last whole word, by design, where other
 * tools draw it whole and clip it at the box, so a reader still extracts the clipped part nobody sees.
 */
export function cutProbes(words: Probe[], warnings: readonly string[]): number {
  const cut = new Set<string>();
  for (const w of warnings) {
    const m = /^field "(.*)": the text does not fit the field and is cut off/.exec(w);
    if (m) cut.add(m[1]);
  }
  return words.filter((p) => p.names.some((n) => cut.has(n))).length;
}

/** Share of probes found in the text a reader extracted (whitespace ignored). */
export function heldShare(text: string, words: Probe[]): number {
  if (!words.length) return NaN;
  const flat = text.replace(/\s+/g, '');
  return words.filter((p) => flat.includes(p.word)).length / words.length;
}
