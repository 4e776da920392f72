// The form as pdf.js should read it for captions: the pages asked for with content streams that keep
// only what places text (text objects and operators, the graphics state stack and matrix, ExtGState,
// XObjects, marked content), appended to the file as an incremental update. Some forms draw their
// boxes, rules and even their letters as paths (the DS-11's two form pages: 2.5 and 1.5 MB of path
// operators around 27 runs of text), and pdf.js lexes every operator to find the text; our scan of the
// same bytes is several times cheaper. pdf.js's text answer depends on none of what is dropped.
import { inflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFName,
  PDFRawStream,
  PDFRef,
  decodePDFRawStream,
  type PDFContext,
  type PDFDict,
} from '@cantoo/pdf-lib';
import { DELIMITER, SPACE, literalStringEnd } from '../content-lexing.js';
import type { PageNode } from '../pages.js';

/** An operator of up to three characters as one number (its bytes, first byte highest). */
const code = (op: string) => Array.from(op).reduce((n, ch) => n * 256 + ch.charCodeAt(0), 0);

/** Operators pdf.js's text extraction reads (PDF 32000-1, tables 51, 57, 105, 107, 320); the rest draw. */
const KEEP = new Set(
  [
    ...['BT', 'ET', 'Tc', 'Tw', 'Tz', 'TL', 'Tf', 'Tr', 'Ts', 'Td', 'TD', 'Tm', 'T*', 'Tj', 'TJ', "'", '"'],
    ...['q', 'Q', 'cm', 'gs', 'Do', 'BMC', 'BDC', 'EMC', 'BX', 'EX', 'd0', 'd1'],
  ].map(code),
);
/** Operators that make an enclosing group matter to text: they show text or paint an XObject. */
const TEXT_EFFECT = new Set(['BT', 'Tj', 'TJ', "'", '"', 'Do', 'BX', 'EX', 'd0', 'd1'].map(code));
const [SAVE, RESTORE, BEGIN_MARK, BEGIN_MARK_PROPS, END_MARK, INLINE_DATA] = ['q', 'Q', 'BMC', 'BDC', 'EMC', 'ID'].map(
  code,
);

/** After an inline image's ID: past its data, to the end of "EI" followed by white space (as readers find it). */
function inlineImageEnd(s: Uint8Array, i: number): number {
  for (i++; i + 1 < s.length; i++) {
    if (s[i] === 0x45 && s[i + 1] === 0x49 && SPACE[s[i - 1]] && (i + 2 >= s.length || SPACE[s[i + 2]])) return i + 2;
  }
  return s.length;
}

/** A number, true, false or null: a word that is an operand (numbers start with a digit, sign or point). */
const isOperandWord = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
const isConstant = (s: Uint8Array, start: number, end: number) => {
  const n = end - start;
  const w = n === 4 || n === 5 ? String.fromCharCode(...s.subarray(start, end)) : '';
  return w === 'true' || w === 'null' || w === 'false';
};

/**
 * The content stream with only the operators in KEEP, each with its operands, one per line. A q ... Q
 * group or a marked-content sequence that neither shows text nor paints an XObject is left out whole
 * (Q undoes what the group set; pdf.js reads marked content only around text); groups that do not nest
 * (a producer's mistake) are all kept.
 */
export function textOperators(s: Uint8Array): Uint8Array {
  const out = new Uint8Array(s.length + 1);
  let n = 0;
  let args = -1; // start of the pending operands
  // per open group: its opening operator, where its output started, whether anything in it affects text
  const groups: { op: number; at: number; text: boolean }[] = [];
  const keepAll = () => {
    for (const g of groups) g.text = true;
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (SPACE[c]) {
      i++;
      continue;
    }
    const start = i;
    if (c === 0x25) {
      while (i < s.length && s[i] !== 0x0a && s[i] !== 0x0d) i++;
      continue;
    }
    if (c === 0x28) i = literalStringEnd(s, i);
    else if ((c === 0x3c && s[i + 1] === 0x3c) || (c === 0x3e && s[i + 1] === 0x3e)) i += 2;
    else if (c === 0x3c) {
      while (i < s.length && s[i] !== 0x3e) i++;
      i++;
    } else if (c === 0x2f) {
      i++;
      while (i < s.length && !SPACE[s[i]] && !DELIMITER[s[i]]) i++;
    } else if (DELIMITER[c]) i++;
    else {
      while (i < s.length && !SPACE[s[i]] && !DELIMITER[s[i]]) i++;
      if (!isOperandWord(c) && !isConstant(s, start, i)) {
        let op = -1;
        if (i - start <= 3) for (let k = start, v = 0; k < i; k++) op = v = v * 256 + s[k];
        if (op === INLINE_DATA) i = inlineImageEnd(s, i);
        else if (KEEP.has(op)) {
          const from = args < 0 ? start : args;
          const at = n;
          out.set(s.subarray(from, i), n);
          n += i - from;
          out[n++] = 0x0a;
          if (op === SAVE || op === BEGIN_MARK || op === BEGIN_MARK_PROPS) groups.push({ op, at, text: false });
          else if (op === RESTORE || op === END_MARK) {
            const g = groups.pop();
            if (!g || (g.op === SAVE) !== (op === RESTORE)) keepAll();
            else if (!g.text) n = g.at;
            else keepAll();
          } else if (TEXT_EFFECT.has(op)) keepAll();
        }
        args = -1;
        continue;
      }
    }
    if (args < 0) args = start;
  }
  return out.slice(0, n);
}

/** The decoded bytes of a page's content (one stream or an array of them), or undefined when unreadable. */
function pageContent(ctx: PDFContext, page: PDFDict): Uint8Array | undefined {
  const contents = page.get(PDFName.of('Contents'));
  const refs = contents instanceof PDFArray ? contents.asArray() : [contents];
  const parts: Uint8Array[] = [];
  for (const ref of refs) {
    const stream = ref instanceof PDFRef ? ctx.lookup(ref) : ref;
    if (!(stream instanceof PDFRawStream)) return undefined;
    const filter = stream.dict.get(PDFName.of('Filter'));
    const flateOnly =
      (filter === PDFName.of('FlateDecode') ||
        (filter instanceof PDFArray && filter.size() === 1 && filter.get(0) === PDFName.of('FlateDecode'))) &&
      !stream.dict.has(PDFName.of('DecodeParms'));
    // node's zlib is several times faster than pdf-lib's JavaScript inflate on megabytes of content
    parts.push(flateOnly ? inflateSync(stream.contents) : decodePDFRawStream(stream).decode());
    // streams of an array are one content: an operator may not be cut between them, but a space is due
    parts.push(new Uint8Array([0x0a]));
  }
  return Buffer.concat(parts);
}

const ascii = (s: string) => Buffer.from(s, 'latin1');

/** The last `length` bytes of the file as text. */
const tailText = (bytes: Uint8Array, length: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', Math.max(0, bytes.length - length));

/** The file's last `startxref` value (readers start there), undefined when its end is not a PDF's. */
function lastStartXref(bytes: Uint8Array): number | undefined {
  const m = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tailText(bytes, 1024));
  return m ? Number(m[1]) : undefined;
}

/**
 * `bytes` with an incremental update giving each listed page (1-based, its dict in `pages`) a content
 * stream of its text operators only; pages whose content cannot be read keep theirs. Undefined when the
 * file cannot take an update this way (encrypted: pdf.js would decrypt the new stream; no startxref).
 */
export function withTextOnlyPages(
  bytes: Uint8Array,
  ctx: PDFContext,
  pages: PageNode[],
  wanted: number[],
  encrypted: boolean,
): Uint8Array | undefined {
  const prev = lastStartXref(bytes);
  const root = ctx.trailerInfo.Root;
  if (encrypted || prev === undefined || !(root instanceof PDFRef)) return undefined;
  // above every object number of the file, those pdf-lib could not parse included (the last /Size)
  const sizes = [...tailText(bytes, 4096).matchAll(/\/Size\s+(\d+)/g)]
    .map((m) => Number(m[1]))
    .filter((n) => n < 10_000_000); // a hostile /Size is no reason for an absurd object number
  let next = Math.max(ctx.largestObjectNumber + 1, ...sizes);
  const chunks: Uint8Array[] = [ascii('\n')];
  let offset = bytes.length + 1;
  const entries: [number, number, number][] = []; // object number, generation, offset
  const add = (num: number, gen: number, body: Uint8Array) => {
    entries.push([num, gen, offset]);
    const head = ascii(`${num} ${gen} obj\n`);
    const tail = ascii('\nendobj\n');
    chunks.push(head, body, tail);
    offset += head.length + body.length + tail.length;
  };
  for (const n of wanted) {
    const page = pages[n - 1];
    const content = page?.ref && pageContent(ctx, page.dict);
    if (!content || !page.ref) continue;
    const text = textOperators(content);
    const num = next++;
    add(num, 0, Buffer.concat([ascii(`<< /Length ${text.length} >>\nstream\n`), text, ascii('\nendstream')]));
    const dict = page.dict.clone(ctx);
    dict.set(PDFName.of('Contents'), PDFRef.of(num));
    add(page.ref.objectNumber, page.ref.generationNumber, ascii(dict.toString()));
  }
  if (entries.length === 0) return undefined;
  const xref = [`xref\n0 1\n0000000000 65535 f\r\n`];
  for (const [num, gen, off] of entries)
    xref.push(`${num} 1\n${String(off).padStart(10, '0')} ${String(gen).padStart(5, '0')} n\r\n`);
  const info = ctx.trailerInfo.Info instanceof PDFRef ? ` /Info ${ctx.trailerInfo.Info.toString()}` : '';
  xref.push(
    `trailer\n<< /Size ${next} /Root ${root.toString()}${info} /Prev ${prev} >>\nstartxref\n${offset}\n%%EOF\n`,
  );
  chunks.push(ascii(xref.join('')));
  return Buffer.concat([bytes, ...chunks]);
}
