// Appends content to pages (flattened widgets, watermarks). Each touched page gets its original
// content wrapped in q ... Q once, so a stray CTM or colour left by the page cannot shift ours,
// and our resources get names no page can already use.
import { PDFArray, PDFDict, PDFName, PDFRef, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { N, getDict, resolve, MAX_FIELD_DEPTH } from './fill-objects.js';

type ResourceKind = 'XObject' | 'ExtGState' | 'Font';

export class PageWriter {
  private readonly pending = new Map<PDFDict, string[]>();
  private counter = 0;

  constructor(private readonly ctx: PDFContext) {}

  /** The page's own /Resources, copied down from an ancestor when it only inherits them. */
  private resources(page: PDFDict): PDFDict {
    const own = getDict(page, 'Resources');
    if (own) return own;
    let node = getDict(page, 'Parent');
    for (let d = 0; node && d < MAX_FIELD_DEPTH; d++, node = getDict(node, 'Parent')) {
      const inheritedRes = getDict(node, 'Resources');
      if (inheritedRes) {
        const copy = inheritedRes.clone(this.ctx);
        page.set(N('Resources'), copy);
        return copy;
      }
    }
    const fresh = this.ctx.obj({});
    page.set(N('Resources'), fresh);
    return fresh;
  }

  /** Adds a resource under a fresh name and returns the name. */
  addResource(page: PDFDict, kind: ResourceKind, obj: PDFObject): string {
    const res = this.resources(page);
    let sub = getDict(res, kind);
    if (!sub) res.set(N(kind), (sub = this.ctx.obj({})));
    let name: string;
    do name = `Fc${kind[0]}${++this.counter}`;
    while (sub.has(PDFName.of(name)));
    sub.set(PDFName.of(name), obj);
    return name;
  }

  append(page: PDFDict, content: string): void {
    let list = this.pending.get(page);
    if (!list) this.pending.set(page, (list = []));
    list.push(content);
  }

  /** Writes everything appended: [q, original content..., Q + ours]. */
  commit(): void {
    for (const [page, parts] of this.pending) {
      const existing = resolve(page, 'Contents');
      const streams: PDFObject[] = [];
      if (existing instanceof PDFArray) for (let i = 0; i < existing.size(); i++) streams.push(existing.get(i));
      else if (existing) streams.push(page.get(N('Contents'))!);
      const open = this.ctx.register(this.ctx.stream('q\n'));
      // Left unfiltered: the incremental writer deflates streams above its threshold (node's zlib).
      const close = this.ctx.register(this.ctx.stream(`\nQ\n${parts.join('\n')}\n`));
      const all: PDFObject[] = streams.length ? [open, ...streams, close] : [close];
      page.set(N('Contents'), this.ctx.obj(all.map((s) => (s instanceof PDFRef ? s : this.ctx.register(s)))));
    }
    this.pending.clear();
  }
}
