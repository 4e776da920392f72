// Whether a batch's combined PDF can be built within a render worker's memory budget, estimated at
// acceptance from its templates' file sizes (a render is about its template's size). A worker combining
// holds one parsed item at a time and, for the whole file, only offsets, hashes of shared objects and
// field numbers (pdf/merge/object-copy.ts), so its memory is a base, plus the parse of the largest item,
// plus a little per MB of all items. Factors measured on corpus forms (docs/decisions.md, "Combining
// without the server holding the items"), rounded up.

/** An idle worker with the engine loaded, and the heap's headroom, MiB. */
const COMBINE_BASE_MB = 130;
/** Parsing one item, per MiB of its file (measured ~20 for a 1.9 MB six-page form). */
const COMBINE_PARSE_PER_MB = 25;
/** Kept for the whole combine, per MiB of all items together (measured ~0.12). */
const COMBINE_KEPT_PER_MB = 0.15;

const MB = 1024 * 1024;

/** The estimated peak memory of a worker combining items of these sizes (bytes, one per item), MiB. */
export function combineMemoryMb(itemBytes: readonly number[]): number {
  let largest = 0;
  let total = 0;
  for (const b of itemBytes) {
    largest = Math.max(largest, b);
    total += b;
  }
  return COMBINE_BASE_MB + (COMBINE_PARSE_PER_MB * largest) / MB + (COMBINE_KEPT_PER_MB * total) / MB;
}
