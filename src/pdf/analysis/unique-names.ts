// Unique keys, apart from how they are made (suggested-name.ts): the server completes stored analyses
// with this alone, without loading the transliteration table of any-ascii (a 0.5 MB module source).

/** Longest suggested key: a label is often a sentence; a key should fit on a line of code. */
export const MAX_SUGGESTED_CHARS = 40;

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
