// One render written as a whole file on its template's compact layout (compact-layout.ts): the prefix
// (shared by every render of the template version), then every object the render reaches that is not
// in it (changed and new ones serialized, unchanged ones copied from their prepared bytes), then a
// cross-reference stream listing them all. A flattened render cuts every reference to a field or
// widget dictionary (a tagged form's structure tree points at its widgets), so none is carried.
import {
  type PDFArray,
  type PDFDict,
  PDFNull,
  PDFRef,
  PDFStream,
  type PDFContext,
  type PDFObject,
} from '@cantoo/pdf-lib';
import type { CompactLayout } from './compact-layout.js';
import { refsOf } from './object-refs.js';
import { ObjectWriter } from './incremental-writer.js';
import type { XrefEntry } from './xref-table.js';

/** An object serialized ahead of the render's end ("n g obj ... endobj"), with the numbers it refers to. */
interface WrittenObject {
  generation: number;
  parts: Uint8Array[];
  refs: number[];
}

/** Objects written ahead (prewrite), by number. */
export type Prewritten = Map<number, WrittenObject>;

/** What prewrite needs of the render's ChangeTracker (after its mark()). */
interface Watcher {
  watch(n: number, containers: readonly (PDFDict | PDFArray)[]): void;
}

/**
 * Serializes these objects now (a render whose scripts run in another thread does it while they run),
 * telling `tracker` (marked) which containers each holds; writeCompact takes the result with the numbers
 * changed since dropped (ChangeTracker.changedSinceMark).
 */
export function prewrite(ctx: PDFContext, refs: PDFRef[], baseMax: number, tracker: Watcher): Prewritten {
  const out: Prewritten = new Map();
  for (const ref of refs) {
    const obj = ctx.lookup(ref);
    if (!obj) continue; // a number reserved for an object not made yet (a font embedded at the end)
    const w = new ObjectWriter();
    const seen: NonNullable<ObjectWriter['seen']> = { containers: [], refs: [] };
    w.seen = seen;
    writeObject(w, ref, obj, baseMax);
    w.flush();
    tracker.watch(ref.objectNumber, seen.containers);
    out.set(ref.objectNumber, { generation: ref.generationNumber, parts: w.parts, refs: seen.refs });
  }
  return out;
}

function writeObject(w: ObjectWriter, ref: PDFRef, obj: PDFObject, baseMax: number): void {
  w.str(`${ref.objectNumber} ${ref.generationNumber} obj\n`);
  if (obj instanceof PDFStream) w.stream(obj, ref.objectNumber > baseMax);
  else w.value(obj);
  w.str('\nendobj\n');
}

export interface CompactRender {
  /** what follows the layout's prefix: the render's objects and the cross-reference stream */
  tail: Uint8Array;
  /** objects of the output written per render (outside the prefix) */
  written: number;
}

/**
 * `changed`: base objects the render changed and every object it added (ChangeTracker.changed());
 * `baseMax`: the largest number of the base (and the prefix's object streams); `ready`: objects written
 * ahead that have not changed since (prewrite), used as they are.
 */
export function writeCompact(
  ctx: PDFContext,
  layout: CompactLayout,
  changed: PDFRef[],
  baseMax: number,
  flatten: boolean,
  ready?: Prewritten,
): CompactRender {
  const fresh = new Map<number, PDFRef>();
  for (const ref of changed) fresh.set(ref.objectNumber, ref);
  const cut = flatten ? layout.formObjects : undefined;

  // The objects to write: those reached from the trailer outside the prefix (unchanged prefix objects
  // are neither written nor expanded: what they reach is in the prefix too).
  const reached = new Set<number>();
  const stack: number[] = [];
  const info = ctx.trailerInfo;
  for (const t of [info.Root, info.Info]) if (t instanceof PDFRef) stack.push(t.objectNumber);
  while (stack.length) {
    const n = stack.pop()!;
    if (reached.has(n) || cut?.has(n)) continue;
    const ref = fresh.get(n);
    if (!ref && (layout.prefixEntries.has(n) || !layout.generation.has(n))) continue; // no generation: a reference to nothing, null as readers take it
    reached.add(n);
    const out = ref ? (ready?.get(n)?.refs ?? refsOf(ctx.lookup(ref) ?? PDFNull)) : layout.edges.get(n)!;
    for (const e of out) if (!reached.has(e)) stack.push(e);
  }

  const w = new ObjectWriter();
  w.length = layout.prefix.length;
  // Only this render's rows: the prefix's are laid out once (xref-table.ts).
  const own = new Map<number, XrefEntry>();
  const written = reached.size;
  for (const n of [...reached].sort((a, b) => a - b)) {
    const ref = fresh.get(n);
    if (!ref) {
      own.set(n, [1, w.offset, layout.generation.get(n)!]);
      w.bytes(layout.bytes.get(n)!);
      continue;
    }
    own.set(n, [1, w.offset, ref.generationNumber]);
    const early = ready?.get(n);
    if (early && early.generation === ref.generationNumber) for (const part of early.parts) w.bytes(part);
    else writeObject(w, ref, ctx.lookup(ref) ?? PDFNull, baseMax);
  }
  // A changed prefix object that is no longer reached is listed free (its old bytes stay unlisted).
  const freed = changed.map((r) => r.objectNumber).filter((n) => !reached.has(n) && layout.prefixEntries.has(n));

  const xrefNum = Math.max(ctx.largestObjectNumber, baseMax) + 1;
  const xrefOffset = w.offset;
  own.set(xrefNum, [1, xrefOffset, 0]);
  const size = xrefNum + 1;
  const { data, w2, w3, filterEntries } = layout.xref.encode(size, own, freed);
  w.str(`${xrefNum} 0 obj\n<<\n/Type /XRef\n/Size ${size}\n/W [ 1 ${w2} ${w3} ]\n`);
  for (const [key, value] of [
    ['/Root', info.Root],
    ['/Info', info.Info],
    ['/ID', info.ID],
  ] as [string, PDFObject | undefined][]) {
    if (!value) continue;
    w.str(`${key} `);
    w.value(value);
    w.str('\n');
  }
  w.str(`${filterEntries}/Length ${data.length}\n>>\nstream\n`);
  w.bytes(data);
  w.str(`\nendstream\nendobj\nstartxref\n${xrefOffset}\n%%EOF\n`);
  w.flush();
  const out = Buffer.concat(w.parts);
  return { tail: new Uint8Array(out.buffer, out.byteOffset, out.byteLength), written };
}
