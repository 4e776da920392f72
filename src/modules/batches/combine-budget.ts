// Whether a batch's combined PDF can be built within a render worker's memory budget, estimated at
// acceptance from its templates' file sizes (a render is about its template's size). A worker combining
// holds one parsed item at a time and, for the whole file, only offsets, hashes of shared objects and
// field numbers (pdf/merge/object-copy.ts), so its memory is a base, plus the parse of the largest item,
// plus a little per item and per MB of all items. Factors measured on corpus forms with the real worker
// (docs/decisions.md, "Combining without the server holding the items"), rounded up.

/** An idle worker (~80 MB measured) with headroom for the heap, MiB. */
const COMBINE_BASE_MB = 130;
/** Parsing one item, per MiB of its file (measured ~24 for the 1.9 MB DS-11). */
const COMBINE_PARSE_PER_MB = 25;
/** Kept for the whole combine per item, MiB, and per MiB of all items (measured ~0.035 and ~0.026). */
const COMBINE_KEPT_PER_ITEM_MB = 0.05;
const COMBINE_KEPT_PER_MB = 0.04;

const MB = 1024 * 1024;

/** The estimated peak memory of a worker combining items of these sizes (bytes, one per item), MiB. */
export function combineMemoryMb(itemBytes: readonly number[]): number {
  let largest = 0;
  let total = 0;
  for (const b of itemBytes) {
    largest = Math.max(largest, b);
    total += b;
  }
  return (
    COMBINE_BASE_MB +
    (COMBINE_PARSE_PER_MB * largest) / MB +
    COMBINE_KEPT_PER_ITEM_MB * itemBytes.length +
    (COMBINE_KEPT_PER_MB * total) / MB
  );
}
