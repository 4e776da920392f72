// The streams that filling, flattening or reading a page's text will decode (page content, the form
// XObjects and fonts it draws with, widget appearances), decoded once at upload under a ceiling
// (issue 27: a 4 KB page stream, Flate over Flate, inflated every flattened render's worker past its
// memory budget). A template the engine could only refuse later is refused now, with INVALID_PDF.
import { PDFArray, PDFDict, PDFStream, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';
import { DEFAULT_LIMITS, type AnalyseLimits } from '../limits.js';
import type { PageNode } from '../pages.js';
import { N, deref, getDict, inherited } from '../pdf-objects.js';
import { StreamTooLarge, decodedBytes } from '../stream-bytes.js';
import { PdfEngineError } from '../types.js';
import { contentBalance, type BalanceCache } from '../content-balance.js';

const MB = 1024 * 1024;
const CONTENT = 'the content';

type Limits = Pick<AnalyseLimits, 'maxStreamBytes' | 'maxDecodedBytes' | 'maxDepth'>;

/**
 * Throws PDF_LIMIT when a stream of a page decodes past `maxStreamBytes`, or all of them past
 * `maxDecodedBytes`. Answers the 1-based pages with a stream that cannot be decoded at all: text
 * extraction (pdf.js, whose decoders have no ceiling) must stay away from them. `balances`, when given,
 * is filled with the q/Q balance of each page content stream, as page-content.ts would read it.
 */
export function checkStreamSizes(
  ctx: PDFContext,
  pages: PageNode[],
  lim: Limits,
  balances?: BalanceCache,
): Set<number> {
  const seen = new Set<PDFObject>();
  const undecodable = new Set<number>();
  let total = 0;

  pages.forEach(({ dict: page }, index) => {
    const n = index + 1;
    const stream = (obj: PDFObject | undefined, what: string): PDFStream | undefined => {
      const s = deref(ctx, obj);
      if (!(s instanceof PDFStream) || seen.has(s)) return undefined;
      seen.add(s);
      try {
        const bytes = decodedBytes(s, lim.maxStreamBytes);
        total += bytes.length;
        // (past the renders' own ceiling, page-content.ts refuses the stream: it decides then)
        if (balances && what === CONTENT && bytes.length <= DEFAULT_LIMITS.maxStreamBytes)
          balances.set(s, contentBalance(bytes));
      } catch (err) {
        if (err instanceof StreamTooLarge)
          throw new PdfEngineError(
            'PDF_LIMIT',
            `${what} on page ${n} decodes to more than ${lim.maxStreamBytes / MB} MB (a decompression bomb); ` +
              'the template could not be filled or flattened',
          );
        undecodable.add(n);
      }
      if (total > lim.maxDecodedBytes)
        throw new PdfEngineError(
          'PDF_LIMIT',
          `the content streams of the form's pages decode to more than ${lim.maxDecodedBytes / MB} MB together`,
        );
      return s;
    };

    const resources = (res: PDFDict | undefined, depth: number): void => {
      if (!res || depth > lim.maxDepth || seen.has(res)) return;
      seen.add(res);
      for (const obj of values(getDict(res, 'XObject'))) {
        const x = deref(ctx, obj);
        // images are never decoded to fill, flatten or read text
        if (!(x instanceof PDFStream) || x.dict.lookup(N('Subtype')) === N('Image')) continue;
        const form = stream(x, 'a form XObject');
        if (form) resources(getDict(form.dict, 'Resources'), depth + 1);
      }
      for (const obj of values(getDict(res, 'Font'))) font(deref(ctx, obj), depth + 1);
    };

    const font = (f: PDFObject | undefined, depth: number): void => {
      if (!(f instanceof PDFDict) || depth > lim.maxDepth || seen.has(f)) return;
      seen.add(f);
      stream(f.get(N('ToUnicode')), 'a font mapping');
      const descriptor = getDict(f, 'FontDescriptor');
      for (const key of ['FontFile', 'FontFile2', 'FontFile3'])
        if (descriptor) stream(descriptor.get(N(key)), 'a font program');
      const kids = deref(ctx, f.get(N('DescendantFonts')));
      if (kids instanceof PDFArray) for (const kid of kids.asArray()) font(deref(ctx, kid), depth + 1);
      // Type 3: every glyph is a content stream
      for (const glyph of values(getDict(f, 'CharProcs'))) stream(glyph, 'a Type 3 glyph');
      resources(getDict(f, 'Resources'), depth + 1);
    };

    const contents = deref(ctx, page.get(N('Contents')));
    if (contents instanceof PDFArray) for (const part of contents.asArray()) stream(part, CONTENT);
    else stream(contents, CONTENT);
    const own = inherited(page, 'Resources', lim.maxDepth);
    resources(own instanceof PDFDict ? own : undefined, 0);

    const annots = deref(ctx, page.get(N('Annots')));
    if (!(annots instanceof PDFArray)) return;
    for (const a of annots.asArray()) {
      const annot = deref(ctx, a);
      const ap = annot instanceof PDFDict ? getDict(annot, 'AP') : undefined;
      const normal = ap && deref(ctx, ap.get(N('N')));
      // one appearance, or one per state (check boxes, radio buttons)
      for (const obj of normal instanceof PDFDict ? values(normal) : [normal]) {
        const appearance = stream(obj, 'a widget appearance');
        if (appearance) resources(getDict(appearance.dict, 'Resources'), 1);
      }
    }
  });
  return undecodable;
}

function values(dict: PDFDict | undefined): PDFObject[] {
  return dict ? dict.entries().map(([, v]) => v) : [];
}
