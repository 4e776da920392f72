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

/** Makes keys unique in order: the first keeps its key, later ones get _2, _3 ... (still within the length). */
export function uniqueNames(keys: string[]): string[] {
  const used = new Set<string>();
  return keys.map((key) => {
    let out = key;
    for (let n = 2; used.has(out); n++) {
      const suffix = `_${n}`;
      out = key.slice(0, MAX_SUGGESTED_CHARS - suffix.length).replace(/_+$/, '') + suffix;
    }
    used.add(out);
    return out;
  });
}
