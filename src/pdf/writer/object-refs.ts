import { PDFArray, PDFDict, PDFRef, PDFStream, type PDFObject } from '@cantoo/pdf-lib';

/** The object numbers an object refers to (explicit stack: hostile nesting cannot overflow). */
export function refsOf(root: PDFObject): number[] {
  const out: number[] = [];
  const stack: PDFObject[] = [root];
  while (stack.length) {
    const o = stack.pop()!;
    if (o instanceof PDFRef) out.push(o.objectNumber);
    else if (o instanceof PDFDict) for (const v of o.values()) stack.push(v);
    else if (o instanceof PDFArray) for (let i = 0; i < o.size(); i++) stack.push(o.get(i));
    else if (o instanceof PDFStream) stack.push(o.dict);
  }
  return out;
}
