// One render written as a whole file on its template's compact layout (compact-layout.ts): the prefix
// (shared by every render of the template version), then every object the render reaches that is not
// in it (changed and new ones serialized, unchanged ones copied from their prepared bytes), then a
// cross-reference stream listing them all. A flattened render cuts every reference to a field or
// widget dictionary (a tagged form's structure tree points at its widgets), so none is carried.
import { deflateSync } from 'node:zlib';
import { PDFNull, PDFRef, PDFStream, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import type { CompactLayout } from './compact-layout.js';
import { refsOf } from './compact-layout.js';
import { ObjectWriter } from './incremental-writer.js';

/** Entry of the cross-reference stream: type, field 2, field 3 (PDF 32000-1, 7.5.8.3). */
type Entry = [0 | 1 | 2, number, number];

/** Bytes needed to write n big-endian. */
function width(n: number): number {
  let w = 1;
  while (n >= 2 ** (8 * w)) w++;
  return w;
}

export interface CompactRender {
  /** what follows the layout's prefix: the render's objects and the cross-reference stream */
  tail: Uint8Array;
  /** objects of the output written per render (outside the prefix) */
  written: number;
}

/**
 * `changed`: base objects the render changed and every object it added (ChangeTracker.changed());
 * `baseMax`: the largest number of the base (and the prefix's object streams).
 */
export function writeCompact(
  ctx: PDFContext,
  layout: CompactLayout,
  changed: PDFRef[],
  baseMax: number,
  flatten: boolean,
): CompactRender {
  const fresh = new Map<number, PDFRef>();
  for (const ref of changed) fresh.set(ref.objectNumber, ref);
  const cut = flatten ? layout.formObjects : undefined;

  // The objects reached from the trailer, the prefix's own left unexpanded (what they reach is in it).
  const reached = new Set<number>();
  const stack: number[] = [];
  const info = ctx.trailerInfo;
  for (const t of [info.Root, info.Info]) if (t instanceof PDFRef) stack.push(t.objectNumber);
  while (stack.length) {
    const n = stack.pop()!;
    if (reached.has(n) || cut?.has(n)) continue;
    const ref = fresh.get(n);
    if (!ref && !layout.generation.has(n)) continue; // a reference to nothing: null, as readers take it
    reached.add(n);
    if (!ref && layout.prefixEntries.has(n)) continue;
    const out = ref ? refsOf(ctx.lookup(ref) ?? PDFNull) : layout.edges.get(n)!;
    for (const e of out) if (!reached.has(e)) stack.push(e);
  }

  const w = new ObjectWriter();
  w.length = layout.prefix.length;
  const entries = new Map<number, Entry>([[0, [0, 0, 65535]]]);
  for (const [n, e] of layout.prefixEntries) entries.set(n, e);
  let written = 0;
  for (const n of [...reached].sort((a, b) => a - b)) {
    const ref = fresh.get(n);
    if (!ref && layout.prefixEntries.has(n)) continue;
    written++;
    if (!ref) {
      entries.set(n, [1, w.offset, layout.generation.get(n)!]);
      w.bytes(layout.bytes.get(n)!);
      continue;
    }
    const obj = ctx.lookup(ref) ?? PDFNull;
    entries.set(n, [1, w.offset, ref.generationNumber]);
    w.str(`${n} ${ref.generationNumber} obj\n`);
    if (obj instanceof PDFStream) w.stream(obj, n > baseMax);
    else w.value(obj);
    w.str('\nendobj\n');
  }
  // A changed prefix object that is no longer reached is listed free (its old bytes stay unlisted).
  for (const ref of changed) if (!reached.has(ref.objectNumber)) entries.delete(ref.objectNumber);

  const xrefNum = Math.max(ctx.largestObjectNumber, baseMax) + 1;
  const xrefOffset = w.offset;
  entries.set(xrefNum, [1, xrefOffset, 0]);
  const size = xrefNum + 1;
  const w2 = width(xrefOffset);
  let w3 = 1;
  for (const e of entries.values()) w3 = Math.max(w3, width(e[2]));
  const row = 1 + w2 + w3;
  const table = Buffer.alloc(size * row);
  for (let n = 0; n < size; n++) {
    const e = entries.get(n);
    if (!e) continue;
    const at = n * row;
    table[at] = e[0];
    table.writeUIntBE(e[1], at + 1, w2);
    table.writeUIntBE(e[2], at + 1 + w2, w3);
  }
  const data = deflateSync(table, { level: 6 });
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
  w.str(`/Filter /FlateDecode\n/Length ${data.length}\n>>\nstream\n`);
  w.bytes(data);
  w.str(`\nendstream\nendobj\nstartxref\n${xrefOffset}\n%%EOF\n`);
  w.flush();
  const out = Buffer.concat(w.parts);
  return { tail: new Uint8Array(out.buffer, out.byteOffset, out.byteLength), written };
}
