import fs from 'node:fs';
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
const b = new Uint8Array(fs.readFileSync('/work/shared/corpus/pdfs/' + process.argv[2]));
const doc = await pdfjs.getDocument({ data: b, verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, isOffscreenCanvasSupported: false }).promise;
for (let n = 1; n <= doc.numPages; n++) {
  const p = await doc.getPage(n);
  let t = performance.now();
  const ol = await p.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
  const a = performance.now() - t; t = performance.now();
  await p.getTextContent();
  console.log(n, 'ops', a.toFixed(0), ol.fnArray.length, 'text', (performance.now() - t).toFixed(0));
}
