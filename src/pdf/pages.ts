// Cycle-safe page-tree walk. pdf-lib's own traversal has no cycle detection or depth limit,
// so engine code should use this list rather than doc.getPages() on untrusted input.
import { PDFRef, type PDFContext, type PDFDict, type PDFObject } from '@cantoo/pdf-lib';
import type { AnalyseLimits } from './limits.js';
import { N, asDict, getArray, getNameText, resolve } from './pdf-objects.js';
import { PdfEngineError } from './types.js';

export interface PageNode {
  dict: PDFDict;
  /** Indirect reference of the page object, when it is one (it almost always is). */
  ref?: PDFRef;
}

type WalkLimits = Pick<AnalyseLimits, 'maxPages' | 'maxDepth'>;

export function collectPages(ctx: PDFContext, catalog: PDFDict, limits: WalkLimits): PageNode[] {
  if (!asDict(ctx, resolve(catalog, 'Pages'))) throw new PdfEngineError('INVALID_PDF', 'the PDF has no page tree');
  const pages: PageNode[] = [];
  const seen = new Set<PDFDict>();
  // Explicit stack instead of recursion: a deep hostile tree cannot overflow the JS stack.
  const stack: { obj: PDFObject | undefined; depth: number }[] = [{ obj: catalog.get(N('Pages')), depth: 0 }];
  while (stack.length > 0) {
    const { obj, depth } = stack.pop()!;
    const dict = asDict(ctx, obj);
    if (!dict) continue; // skip junk
    // A node met twice is a cycle (or a page with two parents): other readers loop, stop or drop
    // pages on such a tree, so the file is refused rather than half understood.
    if (seen.has(dict))
      throw new PdfEngineError(
        'INVALID_PDF',
        'the page tree is cyclic (a node is its own ancestor or has two parents)',
      );
    seen.add(dict);
    if (depth > limits.maxDepth) {
      throw new PdfEngineError('PDF_LIMIT', `the page tree is nested deeper than ${limits.maxDepth} levels`);
    }
    const kids = getArray(dict, 'Kids');
    // Producers omit /Type now and then; a node with /Kids that is not a /Page is an interior node.
    if (kids && getNameText(dict, 'Type') !== 'Page') {
      for (let i = kids.size() - 1; i >= 0; i--) stack.push({ obj: kids.get(i), depth: depth + 1 });
      continue;
    }
    pages.push({ dict, ref: obj instanceof PDFRef ? obj : undefined });
    if (pages.length > limits.maxPages) {
      throw new PdfEngineError('PDF_LIMIT', `the PDF has more than ${limits.maxPages} pages`);
    }
  }
  if (pages.length === 0) throw new PdfEngineError('INVALID_PDF', 'the PDF has no pages');
  return pages;
}
