// The combined file as it is written: objects of one source document after another, renumbered into
// a single numbering, then our own objects (catalog, page tree, form) and a classic cross-reference
// table. A source document is parsed, copied and dropped before the next, and its objects are handed
// to the writer's sink once written, so memory holds neither a thousand parsed documents nor the output
// (only the offsets and the hashes of shared objects).
//
// Objects that cannot belong to one page or one form copy (content streams, fonts, images, resource
// dictionaries: anything acyclic that is not a page, annotation or field) are written once and shared
// when another source has identical ones: a thousand copies of one template keep one copy of its
// page content and fonts (appearance streams excepted: the caller keeps them per copy). Identity is a hash of the object with its references replaced by their
// targets' hashes, so equal graphs from different files match and different ones never do.
import { createHash } from 'node:crypto';
import { PDFArray, PDFDict, PDFName, PDFRef, PDFStream, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { ObjectWriter } from '../writer/incremental-writer.js';
import { N } from '../pdf-objects.js';

/** Deepest reference chain followed when hashing; deeper graphs are simply not shared. */
const MAX_HASH_DEPTH = 64;

/** The references an object holds directly (a stream's /Length is rewritten, not followed). */
function refsIn(obj: PDFObject, out: PDFRef[] = []): PDFRef[] {
  if (obj instanceof PDFRef) out.push(obj);
  else if (obj instanceof PDFArray) for (let i = 0; i < obj.size(); i++) refsIn(obj.get(i), out);
  else if (obj instanceof PDFStream) {
    for (const [key, value] of obj.dict.entries()) if (key !== N('Length')) refsIn(value, out);
  } else if (obj instanceof PDFDict) for (const value of obj.values()) refsIn(value, out);
  return out;
}

const NOT_SHARED_TYPES = new Set(['Page', 'Pages', 'Annot', 'Catalog']);

/** Pages, annotations and fields belong to one copy: never shared, even when identical. */
function shareable(obj: PDFObject): boolean {
  if (obj instanceof PDFStream || !(obj instanceof PDFDict)) return true;
  for (const key of ['Rect', 'FT', 'T', 'Kids', 'Parent', 'P']) if (obj.has(N(key))) return false;
  const type = obj.get(N('Type'));
  return !(type instanceof PDFName && NOT_SHARED_TYPES.has(type.decodeText()));
}

/** The source objects to copy, with their new numbers (0: written as null). */
export interface CopyPlan {
  ctx: PDFContext;
  /** source reference -> object number in the combined file */
  numbers: Map<PDFRef, number>;
  /** the objects this source writes itself, in order */
  own: PDFRef[];
}

export class CombinedWriter {
  private readonly offsets: number[] = [0];
  /** object hash -> its number, for objects shared between sources */
  private readonly shared = new Map<string, number>();
  private mapping: Map<PDFRef, number> | undefined;
  private readonly out = new ObjectWriter((ref) => this.refText(ref));

  /** `sink` receives the file's bytes in order, after each source and at the end. */
  constructor(private readonly sink: (chunk: Uint8Array) => void) {
    // The binary comment tells transfer tools the file is binary.
    this.out.str('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  }

  /** A fresh object number, written later with writeOwn(). */
  reserve(): number {
    this.offsets.push(-1);
    return this.offsets.length - 1;
  }

  /**
   * Numbers every object reachable from `roots` in `ctx`. `fixed` pre-assigns references (placeholders
   * that stand for our own objects, 0 for null); roots and `unshared` objects are never shared.
   */
  plan(ctx: PDFContext, roots: PDFRef[], fixed: Map<PDFRef, number>, unshared: Iterable<PDFRef> = []): CopyPlan {
    const numbers = new Map(fixed);
    const own: PDFRef[] = [];
    const rootSet = new Set(roots);
    const memo = new Map<PDFRef, string | null>();
    for (const ref of unshared) memo.set(ref, null);
    const stack = [...roots].reverse();
    while (stack.length > 0) {
      const ref = stack.pop()!;
      if (numbers.has(ref)) continue;
      const obj = ctx.lookup(ref);
      if (obj === undefined) {
        numbers.set(ref, 0);
        continue;
      }
      const hash = rootSet.has(ref) ? null : this.hashOf(ctx, ref, memo, 0);
      const known = hash === null ? undefined : this.shared.get(hash);
      if (known !== undefined) {
        numbers.set(ref, known);
        continue;
      }
      const num = this.reserve();
      numbers.set(ref, num);
      if (hash !== null) this.shared.set(hash, num);
      own.push(ref);
      const kids = refsIn(obj);
      for (let i = kids.length - 1; i >= 0; i--) if (!numbers.has(kids[i])) stack.push(kids[i]);
    }
    return { ctx, numbers, own };
  }

  /** Writes the planned objects of a source (after the caller's last changes to them). */
  write(plan: CopyPlan): void {
    this.mapping = plan.numbers;
    try {
      for (const ref of plan.own) this.writeObject(plan.numbers.get(ref)!, plan.ctx.lookup(ref)!);
    } finally {
      this.mapping = undefined;
    }
    this.drain();
  }

  /** Writes one of our own objects; its references are object numbers of the combined file. */
  writeOwn(num: number, obj: PDFObject): void {
    this.writeObject(num, obj);
  }

  /** Ends the file: cross-reference table and trailer after the objects. Answers its length in bytes. */
  finish(root: number): number {
    const w = this.out;
    const xref = w.offset;
    const size = this.offsets.length;
    w.str(`xref\n0 ${size}\n0000000000 65535 f\r\n`);
    for (let i = 1; i < size; i++) {
      const offset = this.offsets[i];
      // A reserved number never written would be a dangling entry: list it as free.
      w.str(offset < 0 ? '0000000000 00000 f\r\n' : `${String(offset).padStart(10, '0')} 00000 n\r\n`);
    }
    w.str(`trailer\n<<\n/Size ${size}\n/Root ${root} 0 R\n>>\nstartxref\n${xref}\n%%EOF\n`);
    this.drain();
    return w.offset;
  }

  /** Hands what is written so far to the sink; offsets keep counting from the start of the file. */
  drain(): void {
    const w = this.out;
    w.flush();
    for (const part of w.parts) this.sink(part);
    w.parts.length = 0;
  }

  private writeObject(num: number, obj: PDFObject): void {
    const w = this.out;
    this.offsets[num] = w.offset;
    w.str(`${num} 0 obj\n`);
    if (obj instanceof PDFStream) w.stream(obj, false);
    else w.value(obj);
    w.str('\nendobj\n');
  }

  private refText(ref: PDFRef): string {
    if (!this.mapping) return `${ref.objectNumber} 0 R`;
    const num = this.mapping.get(ref);
    return num ? `${num} 0 R` : 'null';
  }

  /** Hash of a shareable acyclic object graph, or null (a cycle, a page or field in it, too deep). */
  private hashOf(ctx: PDFContext, ref: PDFRef, memo: Map<PDFRef, string | null>, depth: number): string | null {
    if (memo.has(ref)) return memo.get(ref)!; // in progress (a cycle) reads as null
    memo.set(ref, null);
    const obj = ctx.lookup(ref);
    if (obj === undefined || depth > MAX_HASH_DEPTH || !shareable(obj)) return null;
    const kids = new Map<PDFRef, string>();
    for (const kid of refsIn(obj)) {
      const h = this.hashOf(ctx, kid, memo, depth + 1);
      if (h === null) return null;
      kids.set(kid, h);
    }
    const w = new ObjectWriter((r) => `#${kids.get(r)}`);
    if (obj instanceof PDFStream) w.stream(obj, false);
    else w.value(obj);
    w.flush();
    const hash = createHash('sha256');
    for (const part of w.parts) hash.update(part);
    const h = hash.digest('base64');
    memo.set(ref, h);
    return h;
  }
}
