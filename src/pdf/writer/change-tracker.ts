// Records which indirect objects of a prepared (cached) document one render changes, and puts the
// document back exactly as it was afterwards.
//
// How: @cantoo/pdf-lib calls `context.registerObjectChange(container)` just BEFORE every PDFDict /
// PDFArray mutation (set, delete, push, insert, remove; stream /Length updates go through set). We
// override that method, and `assign` / `delete`, on the one cached context instance (no prototype is
// patched, nothing else in the process is affected). At prepare time every container of the base
// document is mapped to the indirect object that holds it. On the first mutation of a base container
// in a render we copy its entries (copy-on-first-write) and mark its owner dirty; containers created
// by the render are not in the map and need nothing (whatever attached them to the base was itself a
// mutation of a base container). Objects registered by the render get numbers above the base's
// largest, so "changed" = dirty base objects + every number above the base.
// restore() puts the saved entries back into the very same container objects, so everything holding
// them (the field index, the pages list) stays valid.
//
// mark() starts a second record: every object changed after it, base or added. A base object's own
// containers are known; for the others (a container the render put into a base object, the containers of
// an object it added), watch() names the object each belongs to. A render whose scripts run in another
// thread writes the objects it has while they run (compact-writer.ts, prewrite, which watches what it
// writes), and only those changed after the mark again.
import { PDFArray, PDFDict, PDFRef, PDFStream, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';

type Container = PDFDict | PDFArray;

/** pdf-lib's storage behind the public API (stable across pdf-lib and the cantoo fork). */
interface DictInternals {
  dict: Map<unknown, unknown>;
}
interface ArrayInternals {
  array: PDFObject[];
}
interface ContextInternals {
  registerObjectChange(obj: unknown): void;
  assign(ref: PDFRef, obj: PDFObject): void;
  delete(ref: PDFRef): boolean;
}

export class ChangeTracker {
  /** base container -> the indirect object that holds it */
  private readonly owner = new Map<Container, PDFRef>();
  /** the base's largest object number; the render's objects come after it */
  readonly baseMax: number;
  private active = false;
  private readonly dirty = new Set<PDFRef>();
  private readonly savedContainers = new Map<Container, Map<unknown, unknown> | PDFObject[]>();
  private readonly savedObjects = new Map<PDFRef, PDFObject | undefined>();
  /** numbers of the objects changed since mark() (undefined: not marked) */
  private marked: Set<number> | undefined;
  /** containers given to watch() -> the numbers of the objects holding them (one may be in several) */
  private readonly watched = new Map<Container, number | number[]>();

  constructor(private readonly ctx: PDFContext) {
    this.baseMax = ctx.largestObjectNumber;
    for (const [ref, obj] of ctx.enumerateIndirectObjects()) this.mapContainers(ref, obj);
    const internals = ctx as unknown as ContextInternals;
    const assign = ctx.assign.bind(ctx);
    const del = ctx.delete.bind(ctx);
    internals.registerObjectChange = (obj: unknown) => {
      if (this.active && (obj instanceof PDFDict || obj instanceof PDFArray)) this.touchContainer(obj);
    };
    internals.assign = (ref: PDFRef, obj: PDFObject) => {
      this.touchObject(ref);
      assign(ref, obj);
    };
    internals.delete = (ref: PDFRef) => {
      this.touchObject(ref);
      return del(ref);
    };
  }

  /** Explicit stack: a deeply nested hostile object cannot overflow the JS stack. */
  private mapContainers(ref: PDFRef, root: PDFObject): void {
    const stack: PDFObject[] = [root];
    while (stack.length) {
      let obj = stack.pop()!;
      if (obj instanceof PDFStream) obj = obj.dict;
      if (!(obj instanceof PDFDict || obj instanceof PDFArray) || this.owner.has(obj)) continue;
      this.owner.set(obj, ref);
      if (obj instanceof PDFDict) for (const v of obj.values()) stack.push(v);
      else for (let i = 0; i < obj.size(); i++) stack.push(obj.get(i));
    }
  }

  private touchContainer(c: Container): void {
    const w = this.marked && this.watched.get(c);
    if (typeof w === 'number') this.marked!.add(w);
    else if (w) for (const n of w) this.marked!.add(n);
    const ref = this.owner.get(c);
    if (!ref) return; // created by this render
    this.marked?.add(ref.objectNumber);
    if (!this.savedContainers.has(c)) {
      this.savedContainers.set(
        c,
        c instanceof PDFDict
          ? new Map((c as unknown as DictInternals).dict)
          : (c as unknown as ArrayInternals).array.slice(),
      );
    }
    this.dirty.add(ref);
  }

  private touchObject(ref: PDFRef): void {
    if (!this.active) return;
    this.marked?.add(ref.objectNumber);
    if (ref.objectNumber > this.baseMax) return;
    if (!this.savedObjects.has(ref)) this.savedObjects.set(ref, this.ctx.lookup(ref));
    this.dirty.add(ref);
  }

  private objects(): Map<PDFRef, PDFObject> {
    return (this.ctx as unknown as { indirectObjects: Map<PDFRef, PDFObject> }).indirectObjects;
  }

  begin(): void {
    if (this.active) throw new Error('a render is already running on this prepared template');
    this.active = true;
  }

  /** Base objects changed so far and every object added, ascending by number. */
  changed(): PDFRef[] {
    const refs = new Set(this.dirty);
    const objects = this.objects();
    for (let n = this.baseMax + 1; n <= this.ctx.largestObjectNumber; n++)
      if (objects.has(PDFRef.of(n))) refs.add(PDFRef.of(n));
    return [...refs].sort((a, b) => a.objectNumber - b.objectNumber || a.generationNumber - b.generationNumber);
  }

  /**
   * Starts recording which objects change from now on (changedSinceMark): base objects, any object
   * replaced or deleted, and the objects whose containers are watched.
   */
  mark(): void {
    this.marked = new Set();
  }

  /** After mark(): a change to any of these containers is a change of object `n` too. */
  watch(n: number, containers: readonly Container[]): void {
    for (const c of containers) {
      const w = this.watched.get(c);
      if (w === undefined) this.watched.set(c, n);
      else if (typeof w === 'number') {
        if (w !== n) this.watched.set(c, [w, n]);
      } else if (!w.includes(n)) w.push(n);
    }
  }

  /** Numbers of the objects changed, replaced or deleted since mark(). */
  changedSinceMark(): ReadonlySet<number> {
    return this.marked ?? new Set();
  }

  /** Undoes every change since begin(): saved entries back, added objects gone, numbering reset. */
  restore(): void {
    for (const [c, saved] of this.savedContainers) {
      if (c instanceof PDFDict) (c as unknown as DictInternals).dict = saved as Map<unknown, unknown>;
      else (c as unknown as ArrayInternals).array = saved as PDFObject[];
    }
    const objects = this.objects();
    for (const [ref, obj] of this.savedObjects) {
      if (obj) objects.set(ref, obj);
      else objects.delete(ref);
    }
    for (let n = this.baseMax + 1; n <= this.ctx.largestObjectNumber; n++) objects.delete(PDFRef.of(n));
    this.ctx.largestObjectNumber = this.baseMax;
    this.savedContainers.clear();
    this.savedObjects.clear();
    this.dirty.clear();
    this.marked = undefined;
    this.watched.clear();
    this.active = false;
  }
}
