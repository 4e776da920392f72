// A standard face embedded without reading its metrics. pdf-lib's embedStandardFont decompresses and
// parses the face's AFM tables at once (Helvetica-Bold: 20-100 ms the first time in a process), though
// the font dictionary it writes only names the face. Preparation embeds ZapfDingbats and Helvetica-Bold
// for every template (check marks, watermarks) and most renders draw neither: an offline render paid
// for both. The tables now load when the face is first measured or encoded; what is embedded is the same.
import {
  PDFFont,
  StandardFontEmbedder,
  StandardFonts,
  type PDFContext,
  type PDFDocument,
  type PDFRef,
} from '@cantoo/pdf-lib';

/** The faces pdf-lib writes with /Encoding /WinAnsiEncoding (the symbolic ones have their own). */
const SYMBOLIC = new Set<string>([StandardFonts.Symbol, StandardFonts.ZapfDingbats]);

/** doc.embedStandardFont(face) with the metrics loaded on first use. */
export function embedStandardFace(doc: PDFDocument, face: StandardFonts): PDFFont {
  let real: StandardFontEmbedder | undefined;
  const load = () => {
    real ??= StandardFontEmbedder.for(face as unknown as Parameters<typeof StandardFontEmbedder.for>[0]);
    return real;
  };
  // pdf-lib checks the embedder's class; every method of it reads `font` or `encoding`, which load the face
  const lazy = Object.create(StandardFontEmbedder.prototype) as StandardFontEmbedder;
  Object.defineProperties(lazy, {
    // the AFM FontName of each standard face is the face's name
    fontName: { value: face },
    customName: { value: undefined },
    font: { get: () => load().font },
    encoding: { get: () => load().encoding },
    // pdf-lib's dictionary, key for key
    embedIntoContext: {
      value: (context: PDFContext, ref?: PDFRef) => {
        const dict = context.obj({
          Type: 'Font',
          Subtype: 'Type1',
          BaseFont: face,
          Encoding: SYMBOLIC.has(face) ? undefined : 'WinAnsiEncoding',
        });
        if (!ref) return context.register(dict);
        context.assign(ref, dict);
        return ref;
      },
    },
  });
  const font = PDFFont.of(doc.context.nextRef(), doc, lazy);
  (doc as unknown as { fonts: PDFFont[] }).fonts.push(font);
  return font;
}
