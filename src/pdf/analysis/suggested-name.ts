// A readable key for each field, made from its label: lower snake_case ASCII, at most 40
// characters, unique in the template. "Nom et prénom ou dénomination" -> nom_et_prenom_ou_denomination.
import anyAscii from 'any-ascii';

/** Longest suggested key: a label is often a sentence; a key should fit on a line of code. */
export const MAX_SUGGESTED_CHARS = 40;

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
  // "N°" is the abbreviation of numéro/number, not "N degrees"
  const plain = text
    .normalize('NFC')
    .replace(/\b([Nn])\s?[°º]/g, '$1o ')
    .replace(HAN, ' $1 ');
  const ascii = anyAscii(plain);
  const words = ascii
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2') // camelCase and "ZhongGuo" part into words
    .toLowerCase()
    .replace(/['’`]/g, ' ')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let out = '';
  for (const w of words) {
    const next = out ? `${out}_${w}` : w;
    if (next.length > MAX_SUGGESTED_CHARS) return out || w.slice(0, MAX_SUGGESTED_CHARS);
    out = next;
  }
  return out;
}

/** The key suggested by a label, else by the field's current key (its PDF name). */
export function suggestName(label: string | null, fallback: string): string {
  const fromLabel = label && !JAPANESE.test(label) ? toSnakeCase(label) : '';
  return fromLabel || toSnakeCase(fallback) || 'field';
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
  const groups = new Map<string, number[]>();
  keys.forEach((k, i) => {
    const g = groups.get(k);
    if (g) g.push(i);
    else groups.set(k, [i]);
  });
  const out = [...keys];
  for (const [key, members] of groups) {
    if (members.length < 2) continue;
    const prefixes = members.map((i) => sectionPrefix(sections[i], key));
    if (new Set(prefixes.filter(Boolean)).size < 2) continue;
    members.forEach((i, k) => {
      if (prefixes[k]) out[i] = `${prefixes[k]}_${key}`;
    });
  }
  return out;
}

/** Makes keys unique in order: the first keeps its key, later ones get _2, _3 ... (still within the length). */
export function uniqueNames(keys: string[]): string[] {
  const used = new Set<string>();
  // the next suffix to try per key: a form repeating one label hundreds of times stays linear
  const next = new Map<string, number>();
  return keys.map((key) => {
    let out = key;
    for (let n = next.get(key) ?? 2; used.has(out); n++) {
      const suffix = `_${n}`;
      out = key.slice(0, MAX_SUGGESTED_CHARS - suffix.length).replace(/_+$/, '') + suffix;
      next.set(key, n + 1);
    }
    used.add(out);
    return out;
  });
}
