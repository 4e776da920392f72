// Suggested keys against the keys a person chose (detect-keys-checked.ts, written by reading each page):
// 8 corpus forms drawn flat (detect-truth.ts), detected, each detection paired one to one with the real
// widget it overlaps (IoU >= 0.5, same type family, best overlap first, as detect-corpus.test.ts pairs
// them). For every paired widget the checked list names, the finder's key AGREES with the person's when
// both hold the same words, in any order: keys are split into words (snake_case, camelCase, any
// punctuation), lowercased, accents dropped, a plural's final "s" and a possessive's "s" dropped, and
// English, French and German stop words (of, the, de, du, der...) left out; then the two word sets must be
// equal (numbers count as words: "1_full_name" does not agree with "full_name"). The share that
// agrees is printed per form and in total (with a looser "one holds the other" share, reported only)
// and held at the figure reached. The target is 80 %: see docs/decisions.md.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Detection, detectFields } from '../../src/pdf/detect/detect.js';
import type { Rect } from '../../src/pdf/types.js';
import { corpusDir } from '../helpers/corpus.js';
import { CHECKED_KEYS } from '../helpers/detect-keys-checked.js';
import { familyOf, flatTruth, type TruthWidget } from '../helpers/detect-truth.js';

const dir = corpusDir();
const read = (f: string) => new Uint8Array(readFileSync(path.join(dir!, 'pdfs', f)));

/**
 * The share of suggested keys that agree: 35 % before the key rules of detection-keys.ts, 60 % (114 of 191)
 * after, 81 % (154 of 191) with captions under writing lines, row context and the rules of h-keys.
 */
const FLOOR = 0.8;

const STOP = new Set(
  // "s": what is left of a possessive (buyer's -> buyer s)
  (
    'a an the of and or to for in on at by with from as is are be your you if any s ' +
    'de du des la le les l d au aux et ou en pour par sur un une ' +
    'der die das den dem und oder von zu im'
  ).split(' '),
);

/** A key's words: split, lowercased, without accents, plural "s" or stop words. */
function keyWords(key: string): Set<string> {
  const words = key
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '' && !STOP.has(w))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
  return new Set(words);
}

const same = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((w) => b.has(w));
const holds = (a: Set<string>, b: Set<string>) => [...b].every((w) => a.has(w));

const iou = (a: Rect, b: Rect) => {
  const ix = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const iy = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = ix * iy;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union > 0 ? inter / union : 0;
};

/** Each real widget's paired detection (one to one, best overlap first, same type family). */
function pairs(truth: TruthWidget[], detections: Detection[]): Map<TruthWidget, Detection> {
  const found = detections.flatMap((d) => (d.widgets ?? [d.rect]).map((rect) => ({ d, rect })));
  const all: { t: number; f: number; v: number }[] = [];
  for (const [ti, t] of truth.entries())
    for (const [fi, f] of found.entries()) {
      if (f.d.page !== t.page || familyOf(f.d.type) !== t.family) continue;
      const v = iou(t.rect, f.rect);
      if (v >= 0.5) all.push({ t: ti, f: fi, v });
    }
  all.sort((a, b) => b.v - a.v);
  const usedT = new Set<number>();
  const usedF = new Set<number>();
  const out = new Map<TruthWidget, Detection>();
  for (const p of all) {
    if (usedT.has(p.t) || usedF.has(p.f)) continue;
    usedT.add(p.t);
    usedF.add(p.f);
    out.set(truth[p.t], found[p.f].d);
  }
  return out;
}

describe('keyWords: what "agree" compares', () => {
  it('splits any style, drops accents, plurals and stop words; order does not matter', () => {
    expect(keyWords('date_of_birth')).toEqual(new Set(['date', 'birth']));
    expect(same(keyWords('DateOfBirth'), keyWords('birth_date'))).toBe(true);
    expect(same(keyWords('numéro_de_téléphone'), keyWords('telephone numero'))).toBe(true);
    expect(same(keyWords('contributions_paid'), keyWords('contribution_paid'))).toBe(true);
    expect(same(keyWords('address'), keyWords('addresses'))).toBe(false); // "ss": no plural taken off
    expect(same(keyWords("buyer's_name"), keyWords('buyer_name'))).toBe(true);
    expect(same(keyWords('name'), keyWords('last_name'))).toBe(false);
    expect(same(keyWords('1_full_name'), keyWords('full_name'))).toBe(false);
  });
});

describe.skipIf(!dir)('suggested keys against the keys a person chose, on 8 forms', { timeout: 300_000 }, () => {
  it('reports the share that agrees per form and in total, at or above the figure reached', async () => {
    const rows: string[] = [
      '| form | checked | agree | share | one holds the other |',
      '| --- | --- | --- | --- | --- |',
    ];
    const misses: string[] = [];
    let checked = 0;
    let agree = 0;
    let loose = 0;
    for (const [form, keys] of Object.entries(CHECKED_KEYS)) {
      const { flat, truth } = await flatTruth(read(form));
      const result = await detectFields(flat);
      const seen = new Set<string>();
      let c = 0;
      let a = 0;
      let l = 0;
      for (const [widget, d] of pairs(truth, result.detections)) {
        const person = keys[widget.name];
        // a radio group's buttons are one field: judged once
        if (person === undefined || seen.has(widget.name)) continue;
        seen.add(widget.name);
        const p = keyWords(person);
        const s = keyWords(d.key);
        c++;
        if (same(p, s)) a++;
        else misses.push(`${form}: ${person} <> ${d.key}`);
        if (holds(p, s) || holds(s, p)) l++;
      }
      rows.push(`| ${form} | ${c} | ${a} | ${pct(a, c)} | ${pct(l, c)} |`);
      checked += c;
      agree += a;
      loose += l;
    }
    rows.push(`| **total** | ${checked} | ${agree} | ${pct(agree, checked)} | ${pct(loose, checked)} |`);
    console.log(
      `\nsuggested keys a person agrees with\n${rows.join('\n')}\n\ndisagreements (person <> finder):\n${misses.join('\n')}\n`,
    );

    // most checked fields are found: the figure is about keys, not recall
    expect(checked).toBeGreaterThanOrEqual(150);
    expect(agree / checked).toBeGreaterThanOrEqual(FLOOR);
  });
});

const pct = (n: number, d: number) => (d === 0 ? '-' : `${Math.round((n / d) * 100)} %`);
