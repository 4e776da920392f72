import fs from 'node:fs';
const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
const b = new Uint8Array(fs.readFileSync('/work/shared/corpus/pdfs/uscourts-b107-financial-affairs.pdf'));
const doc = await pdfjs.getDocument({ data: b, verbosity: 0, isEvalSupported: false, disableFontFace: true, useSystemFonts: false }).promise;
const p = await doc.getPage(2);
const tc = await p.getTextContent();
for (const it of tc.items as any[]) console.log(JSON.stringify(it.str), [...it.str].map((c: string) => c.codePointAt(0)!.toString(16)), it.fontName, tc.styles[it.fontName]?.fontFamily, it.transform.map((v: number) => v.toFixed(1)).join(','), it.width.toFixed(1));
