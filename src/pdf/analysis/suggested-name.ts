// A readable key for each field, made from its label: lower snake_case ASCII, at most 40
// characters, unique in the template. "Nom et prénom ou dénomination" -> nom_et_prenom_ou_denomination.
import anyAscii from 'any-ascii';
import { MAX_SUGGESTED_CHARS } from './unique-names.js';

// Re-exported: the analysis and detection take every naming helper from here.
export { MAX_SUGGESTED_CHARS, uniqueNames } from './unique-names.js';

/**
 * Japanese mixes kana with kanji, which a transliterator reads as Mandarin (生年月日 -> sheng nian
 * yue ri): no reader would recognise that, so labels with kana give no key and the PDF name is used.
 * A label of kanji alone cannot be told from Chinese and is transliterated as Chinese.
 */
const JAPANESE = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** Chinese is written without spaces: one word per character keeps syllables apart. */
const HAN = /(\p{Script=Han})/gu;

/** `text` as lower snake_case ASCII, cut at a word boundary near MAX_SUGGESTED_CHARS; '' when nothing is left. */
export function toSnakeCase(text: string): string {
  return cutWords(snakeWords(text));
}

/** The words of `text` in lower case ASCII, in order. */
function snakeWords(text: string): string[] {
  // "N°" is the abbreviation of numéro/number, not "N degrees"
  const plain = text
    .normalize('NFC')
    .replace(/\b([Nn])\s?[°º]/g, '$1o ')
    .replace(HAN, ' $1 ');
  return anyAscii(plain)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2') // camelCase and "ZhongGuo" part into words
    .toLowerCase()
    .replace(/['’`]/g, ' ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Words joined with _, cut at a word boundary within `max` characters. */
function cutWords(words: string[], max = MAX_SUGGESTED_CHARS): string {
  let out = '';
  for (const w of words) {
    const next = out ? `${out}_${w}` : w;
    if (next.length > max) return out || w.slice(0, max);
    out = next;
  }
  return out;
}

/** The key suggested by a label, else by the field's current key (its PDF name). */
export function suggestName(label: string | null, fallback: string): string {
  const fromLabel = label && !JAPANESE.test(label) ? toSnakeCase(label) : '';
  return fromLabel || toSnakeCase(fallback) || 'field';
}

/**
 * Keys shared by fields whose labels differ only after MAX_SUGGESTED_CHARS (long tooltips in an outline:
 * "5. Calculation of the sales and duty payable. Line 3. ..."): each made from what its label says
 * beyond the words the group's labels all start with, behind the labels' leading number if they have one
 * (5_line_3_...). Parallel to `keys`; a group the tails do not tell apart keeps its keys.
 */
export function withLabelTails(keys: string[], labels: (string | null)[]): string[] {
  const out = [...keys];
  for (const members of groupsOf(keys)) {
    const words = members.map((i) =>
      labels[i] && !JAPANESE.test(labels[i] as string) ? snakeWords(labels[i] as string) : [],
    );
    if (words.some((w) => w.length === 0)) continue;
    let common = 0;
    while (words.every((w) => common < w.length && w[common] === words[0][common])) common++;
    if (common === 0) continue;
    const tails = words.map((w) => (w.length > common ? headAndTail(w, common) : ''));
    if (new Set(tails).size < 2) continue;
    members.forEach((i, k) => {
      if (tails[k]) out[i] = tails[k];
    });
  }
  return out;
}

/**
 * A key from the words after `common` (what tells a label from its group's), led by as many of the shared
 * words as still fit: "Déclare être inscrit … : Oui" -> declare_etre_inscrit_sur_la_liste_oui; a leading
 * line or part number always gets its place (2_line_a_opening_inventory_dried_fresh).
 */
function headAndTail(words: string[], common: number): string {
  const lead = /^\d{1,3}[a-z]?$/.test(words[0]) ? words[0].length + 1 : 0;
  const tail = cutWords(words.slice(common), MAX_SUGGESTED_CHARS - lead);
  let head = '';
  for (const w of words.slice(0, common)) {
    const next = head ? `${head}_${w}` : w;
    if (next.length + tail.length + 1 > MAX_SUGGESTED_CHARS) break;
    head = next;
  }
  return head ? `${head}_${tail}` : tail;
}

/** Indexes of the keys that occur more than once, grouped by key. */
function groupsOf(keys: string[]): number[][] {
  const groups = new Map<string, number[]>();
  keys.forEach((k, i) => {
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  });
  return [...groups.values()].filter((g) => g.length > 1);
}

/** Words of a section kept in a prefix: a prefix names the section, the key says the rest. */
const PREFIX_WORDS = 4;
/** A numbered party or copy ("Debtor 2", "Maître d'apprentissage n°2"): its number must survive the cut. */
const NUMBERED = /^(.*?)\s*(?:\bn[°º]|\bno\.?|#)?\s*\b(\d{1,2})$/iu;

const dropShortTail = (words: string[]) => {
  const out = [...words];
  while (out.length > 1 && out[out.length - 1].length <= 2) out.pop();
  return out;
};

/**
 * The prefix a section gives `key`: the section's words before any ":" (so "Part 1: Give details..." is
 * part_1; a numbered question gives its number), at most PREFIX_WORDS and within what the length leaves, a trailing number always kept
 * (maitre_d_apprentissage_2); '' when none fits or the key already starts with it (the label was the heading).
 */
function sectionPrefix(section: string | undefined, key: string): string {
  if (!section) return '';
  const room = MAX_SUGGESTED_CHARS - key.length - 1;
  const question = /^(\d{1,2})[.)]\s/.exec(section);
  if (question) return key.startsWith(`${question[1]}_`) || question[1].length > room ? '' : question[1];
  const head = section.split(/\s*[:–—]\s*|\s+-\s+/)[0] || section;
  const numbered = NUMBERED.exec(head);
  const words = toSnakeCase(numbered ? numbered[1] : head)
    .split('_')
    .filter(Boolean)
    .slice(0, PREFIX_WORDS);
  const tail = numbered ? `_${numbered[2]}` : '';
  let out = '';
  for (let n = words.length; n > 0 && !out; n--) {
    // a cut that ends on an elided article ("maitre_d") drops it
    const kept = n < words.length ? dropShortTail(words.slice(0, n)) : words;
    const cand = kept.join('_') + tail;
    if (kept.length && cand.length <= room) out = cand;
  }
  return out === '' || key === out || key.startsWith(`${out}_`) ? '' : out;
}

/**
 * Keys shared by several fields, prefixed with the section each sits in (parallel to `keys`) when that
 * tells them apart: a group whose fields are all in one section (or none) is left for uniqueNames' _2.
 */
export function withSectionPrefixes(keys: string[], sections: (string | undefined)[]): string[] {
  const out = [...keys];
  for (const members of groupsOf(keys)) {
    const key = keys[members[0]];
    const prefixes = members.map((i) => sectionPrefix(sections[i], key));
    if (new Set(prefixes.filter(Boolean)).size < 2) continue;
    members.forEach((i, k) => {
      if (prefixes[k]) out[i] = `${prefixes[k]}_${key}`;
    });
  }
  return out;
}
