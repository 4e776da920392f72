// Objects nothing points to any more. pdf-lib writes every object it holds, so what preparation cut
// loose (stripped scripts and attachments, old appearance streams, the XFA packets) would still be in
// every output, readable by anyone who opens the file as bytes. Dropped before the base is saved.
import { PDFArray, PDFDict, PDFRef, PDFStream, type PDFContext, type PDFObject } from '@cantoo/pdf-lib';

/** Deletes the indirect objects not reachable from the trailer (or `keep`); returns how many. */
export function dropUnreachable(ctx: PDFContext, keep: PDFRef[] = []): number {
  const reached = new Set<PDFRef>();
  const trailer = ctx.trailerInfo as { Root?: PDFObject; Info?: PDFObject; Encrypt?: PDFObject };
  const stack: PDFObject[] = [trailer.Root, trailer.Info, trailer.Encrypt, ...keep].filter(
    (o): o is PDFObject => o !== undefined,
  );
  while (stack.length) {
    const o = stack.pop()!;
    if (o instanceof PDFRef) {
      if (reached.has(o)) continue;
      reached.add(o);
      const target = ctx.lookup(o);
      if (target) stack.push(target);
    } else if (o instanceof PDFDict) {
      for (const [, v] of o.entries()) stack.push(v);
    } else if (o instanceof PDFArray) {
      for (let i = 0; i < o.size(); i++) stack.push(o.get(i));
    } else if (o instanceof PDFStream) stack.push(o.dict);
  }
  let dropped = 0;
  for (const [ref] of ctx.enumerateIndirectObjects()) {
    if (reached.has(ref)) continue;
    ctx.delete(ref);
    dropped++;
  }
  return dropped;
}
