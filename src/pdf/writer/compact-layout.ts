// The compact layout of a prepared template (built once per template version): which base objects
// every output carries unchanged, packed once into a PREFIX (header, streams as they are, the other
// objects in compressed object streams), and, for the rest, the bytes a render copies when it reaches
// them (compact-writer.ts). An output is then prefix + the objects the render reached outside it + a
// fresh cross-reference stream: no incremental update, no unreachable field or widget dictionaries.
//
// What goes in the prefix: objects reachable from the trailer without the catalog's /AcroForm, the
// pages' /Annots and any field or widget dictionary (so they are in flattened and interactive outputs
// alike), minus the objects renders change (catalog, page tree, pages, their resources and content
// arrays): those are written per render, from their base bytes when unchanged.
import { deflateSync } from 'node:zlib';
import { PDFDict, PDFName, PDFRef, PDFStream, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { ObjectWriter } from './incremental-writer.js';
import { refsOf } from './object-refs.js';
import { byteWidth, XrefTable } from './xref-table.js';

/** Objects per object stream: big enough to compress well, small enough to parse lazily. */
const OBJECTS_PER_STREAM = 200;
/** Unfiltered base streams at least this long are deflated once, here (page content, redrawn appearances). */
const DEFLATE_MIN_BYTES = 64;

export interface CompactLayout {
  /** header + every prefix object: the start of every output */
  readonly prefix: Uint8Array;
  /** the PDF version the header names (1.5 at least: object and cross-reference streams) */
  readonly version: string;
  /** per object number: 1 = in the prefix at `field2`, 2 = in object stream `field2` at index `field3` */
  readonly prefixEntries: Map<number, [1 | 2, number, number]>;
  /** object number -> generation, for every base object */
  readonly generation: Map<number, number>;
  /** object number -> numbers it references (base objects, as parsed) */
  readonly edges: Map<number, number[]>;
  /** object number -> its bytes ("n g obj ... endobj"), for base objects outside the prefix */
  readonly bytes: Map<number, Uint8Array>;
  /** field and widget dictionaries: a flattened output cuts every reference to them */
  readonly formObjects: ReadonlySet<number>;
  /** the prefix's cross-reference rows, laid out once (a render adds its own) */
  readonly xref: XrefTable;
  /** memory held, for the cache's budget */
  readonly approxBytes: number;
}

const ascii = (s: string) => Buffer.from(s, 'latin1');

function objectBytes(ref: PDFRef, obj: PDFObject): Uint8Array {
  const w = new ObjectWriter();
  w.str(`${ref.objectNumber} ${ref.generationNumber} obj\n`);
  if (obj instanceof PDFStream) w.stream(obj, true, DEFLATE_MIN_BYTES, 6);
  else w.value(obj);
  w.str('\nendobj\n');
  w.flush();
  return Buffer.concat(w.parts);
}

function valueText(obj: PDFObject): Buffer {
  const w = new ObjectWriter();
  w.value(obj);
  w.flush();
  return Buffer.concat(w.parts);
}

export interface LayoutInput {
  ctx: PDFContext;
  catalog: PDFDict;
  /** every page dictionary and page tree node */
  pageTree: PDFDict[];
  /** field and widget dictionaries */
  formDicts: ReadonlySet<PDFDict>;
  /** the base file's header version ("1.7") */
  version: string;
  /** first object number free for the prefix's object streams (the caller reserves them) */
  firstFree: number;
}

/** Numbers of the objects renders change: catalog, page tree, pages and what they hold indirectly. */
function volatileObjects(input: LayoutInput, refOf: Map<PDFObject, number>): Set<number> {
  const out = new Set<number>();
  const add = (o: PDFObject | undefined) => {
    const n = o && refOf.get(o);
    if (n !== undefined) out.add(n);
  };
  add(input.catalog);
  for (const node of input.pageTree) {
    add(node);
    for (const key of ['Resources', 'Contents', 'Annots']) add(node.lookup(PDFName.of(key)));
    const res = node.lookup(PDFName.of('Resources'));
    if (res instanceof PDFDict) for (const [, v] of res.entries()) if (v instanceof PDFRef) add(input.ctx.lookup(v));
  }
  return out;
}

export function buildLayout(input: LayoutInput): { layout: CompactLayout; objectStreams: number } {
  const { ctx, catalog } = input;
  const refOf = new Map<PDFObject, number>();
  const generation = new Map<number, number>();
  const edges = new Map<number, number[]>();
  const objects = new Map<number, { ref: PDFRef; obj: PDFObject }>();
  for (const [ref, obj] of ctx.enumerateIndirectObjects()) {
    refOf.set(obj, ref.objectNumber);
    generation.set(ref.objectNumber, ref.generationNumber);
    edges.set(ref.objectNumber, refsOf(obj));
    objects.set(ref.objectNumber, { ref, obj });
  }
  const formObjects = new Set<number>();
  for (const d of input.formDicts) {
    const n = refOf.get(d);
    if (n !== undefined) formObjects.add(n);
  }
  const pageNodes = new Set<PDFDict>(input.pageTree);
  // What every output reaches: the walk skips /AcroForm, pages' /Annots and form objects.
  const shared = new Set<number>();
  const stack: number[] = [];
  const trailer = ctx.trailerInfo as { Root?: PDFObject; Info?: PDFObject };
  for (const t of [trailer.Root, trailer.Info]) if (t instanceof PDFRef) stack.push(t.objectNumber);
  while (stack.length) {
    const n = stack.pop()!;
    if (shared.has(n) || formObjects.has(n) || !objects.has(n)) continue;
    shared.add(n);
    const obj = objects.get(n)!.obj;
    let out = edges.get(n)!;
    if (obj === catalog) out = edgesExcept(catalog, 'AcroForm');
    else if (obj instanceof PDFDict && pageNodes.has(obj)) out = edgesExcept(obj, 'Annots');
    for (const e of out) stack.push(e);
  }
  const volatile = volatileObjects(input, refOf);

  const parts: Uint8Array[] = [];
  let length = 0;
  const push = (b: Uint8Array) => {
    parts.push(b);
    length += b.length;
  };
  const version = Number(input.version) >= 1.5 ? input.version : '1.5';
  push(ascii(`%PDF-${version}\n%\xE2\xE3\xCF\xD3\n`));
  const prefixEntries = new Map<number, [1 | 2, number, number]>();
  const bytes = new Map<number, Uint8Array>();
  const packed: { num: number; text: Buffer }[] = [];
  let approx = 0;
  for (const [num, { ref, obj }] of [...objects].sort((a, b) => a[0] - b[0])) {
    const inPrefix = shared.has(num) && !volatile.has(num);
    if (inPrefix && !(obj instanceof PDFStream) && ref.generationNumber === 0) {
      packed.push({ num, text: valueText(obj) });
      continue;
    }
    const b = objectBytes(ref, obj);
    if (inPrefix) {
      prefixEntries.set(num, [1, length, ref.generationNumber]);
      push(b);
    } else {
      bytes.set(num, b);
      approx += b.length;
    }
  }
  let streamNum = input.firstFree;
  let objectStreams = 0;
  for (let i = 0; i < packed.length; i += OBJECTS_PER_STREAM) {
    const chunk = packed.slice(i, i + OBJECTS_PER_STREAM);
    const offsets: string[] = [];
    let at = 0;
    chunk.forEach(({ num, text }, index) => {
      offsets.push(`${num} ${at}`);
      at += text.length + 1;
      prefixEntries.set(num, [2, streamNum, index]);
    });
    const head = ascii(`${offsets.join(' ')}\n`);
    const body = Buffer.concat([head, ...chunk.flatMap(({ text }) => [text, ascii('\n')])]);
    const data = deflateSync(body, { level: 9 });
    prefixEntries.set(streamNum, [1, length, 0]);
    push(
      ascii(
        `${streamNum} 0 obj\n<<\n/Type /ObjStm\n/N ${chunk.length}\n/First ${head.length}\n/Filter /FlateDecode\n/Length ${data.length}\n>>\nstream\n`,
      ),
    );
    push(data);
    push(ascii('\nendstream\nendobj\n'));
    streamNum++;
    objectStreams++;
  }
  const prefix = Buffer.concat(parts);
  return {
    layout: {
      prefix,
      version,
      prefixEntries,
      generation,
      edges,
      bytes,
      formObjects,
      xref: new XrefTable(prefixEntries, streamNum, byteWidth(prefix.length)),
      approxBytes: prefix.length + approx + objects.size * 64,
    },
    objectStreams,
  };
}

/** The numbers a dictionary refers to through every entry but one. */
function edgesExcept(dict: PDFDict, key: string): number[] {
  const skip = PDFName.of(key);
  return dict.entries().flatMap(([k, v]) => (k === skip ? [] : refsOf(v)));
}
