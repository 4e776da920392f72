// Appends content to pages (flattened widgets, watermarks). Each touched page gets its original
// content enclosed in balanced q ... Q once (content-balance.ts), so a stray CTM, colour or
// unbalanced save/restore left by the page cannot shift ours or make a viewer drop the page, and
// our resources get names no page can already use.
import {
  PDFArray,
  type PDFDict,
  PDFName,
  PDFRawStream,
  PDFRef,
  PDFStream,
  type PDFContext,
  type PDFObject,
} from '@cantoo/pdf-lib';
import {
  BALANCED,
  TOO_LARGE,
  composeBalances,
  contentBalance,
  enclosing,
  type Balance,
  type BalanceCache,
} from '../content-balance.js';
import { N, getDict, resolve, MAX_FIELD_DEPTH } from '../pdf-objects.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { StreamTooLarge, decodedBytes } from '../stream-bytes.js';
import { PdfEngineError } from '../types.js';

type ResourceKind = 'XObject' | 'ExtGState' | 'Font';

export class PageWriter {
  private readonly pending = new Map<PDFDict, string[]>();
  private readonly fonts = new Map<PDFDict, Map<PDFRef, string>>();
  private counter = 0;

  constructor(
    private readonly ctx: PDFContext,
    private readonly balances: BalanceCache = new WeakMap(),
  ) {}

  /**
   * A content stream's balance; one that cannot be decoded counts as balanced (viewers skip it too).
   * One that decodes past the ceiling (a bomb in a template analysed before stream sizes were checked)
   * is refused with PDF_LIMIT, and remembered so: later renders of the template refuse it at once.
   */
  private balanceOf(obj: PDFObject): Balance {
    const stream = obj instanceof PDFRef ? this.ctx.lookup(obj) : obj;
    if (!(stream instanceof PDFStream)) return BALANCED;
    let b = this.balances.get(stream);
    if (!b) {
      try {
        b = contentBalance(decodedBytes(stream, DEFAULT_LIMITS.maxStreamBytes));
      } catch (err) {
        b = err instanceof StreamTooLarge ? TOO_LARGE : BALANCED;
      }
      this.balances.set(stream, b);
    }
    if (b === TOO_LARGE)
      throw new PdfEngineError(
        'PDF_LIMIT',
        `a page's content decodes to more than ${DEFAULT_LIMITS.maxStreamBytes / (1024 * 1024)} MB (a decompression bomb); ` +
          'the template cannot be flattened or watermarked',
      );
    return b;
  }

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

  /** The page's name for a font, added to its resources on first use. */
  fontResource(page: PDFDict, ref: PDFRef): string {
    let names = this.fonts.get(page);
    if (!names) this.fonts.set(page, (names = new Map()));
    let name = names.get(ref);
    if (!name) names.set(ref, (name = this.addResource(page, 'Font', ref)));
    return name;
  }

  append(page: PDFDict, content: string): void {
    let list = this.pending.get(page);
    if (!list) this.pending.set(page, (list = []));
    list.push(content);
  }

  /** A new content stream (ASCII operators; Buffer converts natively, pdf-lib's stream() char by char). */
  private register(content: string): PDFRef {
    return this.ctx.register(PDFRawStream.of(this.ctx.obj({}), Buffer.from(content, 'latin1')));
  }

  /** Writes everything appended: [q..., original content..., Q... + ours], or ours alone. */
  commit(): void {
    for (const [page, parts] of this.pending) {
      const existing = resolve(page, 'Contents');
      const streams: PDFObject[] = [];
      if (existing instanceof PDFArray) for (let i = 0; i < existing.size(); i++) streams.push(existing.get(i));
      else if (existing) streams.push(page.get(N('Contents'))!);
      // Left unfiltered: the incremental writer deflates streams above its threshold (node's zlib).
      const ours = `${parts.join('\n')}\n`;
      let all: PDFObject[];
      if (streams.length) {
        const { before, after } = enclosing(composeBalances(streams.map((s) => this.balanceOf(s))));
        all = [this.register(before), ...streams, this.register(`${after}${ours}`)];
      } else all = [this.register(ours)];
      page.set(N('Contents'), this.ctx.obj(all.map((s) => (s instanceof PDFRef ? s : this.ctx.register(s)))));
    }
    this.pending.clear();
  }
}
