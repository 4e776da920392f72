// Judges a button's existing on-appearance: does it draw a visible mark in every viewer? Viewers
// draw an appearance stream with its own /Resources only (never /AcroForm /DR), so a mark shown
// with a font the stream does not carry is invisible in poppler and a stray glyph elsewhere.
import { PDFDict, PDFName, PDFNumber, type PDFStream } from '@cantoo/pdf-lib';
import { N, getDict, getNumbers } from '../pdf-objects.js';
import { decodedBytes } from '../stream-bytes.js';

/** Larger appearance streams are not checked (a check mark is a few hundred bytes). */
const MAX_CHECKED_BYTES = 64 * 1024;

/** Operators that put ink on the page (paths, text, XObjects, shadings, inline images). */
const PAINT = new Set(['f', 'F', 'f*', 'B', 'B*', 'b', 'b*', 'S', 's', 'sh', 'Do', 'EI']);
const SHOW = new Set(['Tj', 'TJ', "'", '"']);

type Operand = { kind: 'name' | 'str' | 'num' | 'other'; value: string };

interface Scan {
  /** operators in order, with their operands' text: to compare two streams */
  ops: string[];
  painted: boolean;
  /** text shown: the font name set by the last Tf (undefined when none), and the bytes */
  shows: { font: string | undefined; text: string }[];
}

function contentOf(stream: PDFStream): string | undefined {
  try {
    // decoding stops past the size we judge (a bomb here costs at most that)
    const bytes = decodedBytes(stream, MAX_CHECKED_BYTES);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  } catch {
    return undefined; // too large, or an unsupported filter: we cannot judge it
  }
}

const DELIM = '()<>[]{}/%';
const isSpace = (c: string) => c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '\f' || c === '\0';

/** A tolerant content-stream scanner: operands, operators, strings; inline image data skipped. */
function scan(src: string): Scan {
  const out: Scan = { ops: [], painted: false, shows: [] };
  let operands: Operand[] = [];
  let font: string | undefined;
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (isSpace(c)) {
      i++;
    } else if (c === '%') {
      while (i < n && src[i] !== '\n' && src[i] !== '\r') i++;
    } else if (c === '(') {
      let depth = 1;
      let s = '';
      i++;
      while (i < n && depth > 0) {
        const d = src[i++];
        if (d === '\\') {
          const e = src[i++] ?? '';
          const oct = /^[0-7]{1,3}/.exec(src.slice(i - 1, i + 2));
          if (oct) {
            s += String.fromCharCode(parseInt(oct[0], 8) & 0xff);
            i += oct[0].length - 1;
          } else
            s +=
              ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[e] ??
              (e === '\n' || e === '\r' ? '' : e);
        } else if (d === '(') {
          depth++;
          s += d;
        } else if (d === ')') {
          if (--depth > 0) s += d;
        } else s += d;
      }
      operands.push({ kind: 'str', value: s });
    } else if (c === '<' && src[i + 1] === '<') {
      operands.push({ kind: 'other', value: '<<' });
      i += 2;
    } else if (c === '>' && src[i + 1] === '>') {
      operands.push({ kind: 'other', value: '>>' });
      i += 2;
    } else if (c === '<') {
      const end = src.indexOf('>', i);
      const hex = src.slice(i + 1, end < 0 ? n : end).replace(/[^0-9a-fA-F]/g, '');
      let s = '';
      for (let k = 0; k < hex.length; k += 2)
        s += String.fromCharCode(parseInt(hex.slice(k, k + 2).padEnd(2, '0'), 16));
      operands.push({ kind: 'str', value: s });
      i = end < 0 ? n : end + 1;
    } else if (c === '[' || c === ']' || c === '{' || c === '}' || c === '>' || c === ')') {
      operands.push({ kind: 'other', value: c });
      i++;
    } else if (c === '/') {
      let j = i + 1;
      while (j < n && !isSpace(src[j]) && !DELIM.includes(src[j])) j++;
      operands.push({ kind: 'name', value: src.slice(i + 1, j) });
      i = j;
    } else {
      let j = i;
      while (j < n && !isSpace(src[j]) && !DELIM.includes(src[j])) j++;
      const word = src.slice(i, j);
      i = j;
      if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word) || word === 'true' || word === 'false' || word === 'null') {
        operands.push({ kind: 'num', value: word });
        continue;
      }
      out.ops.push(`${operands.map((o) => `${o.kind}:${o.value}`).join(' ')} ${word}`);
      if (word === 'ID') {
        // Inline image data: binary up to whitespace + EI.
        const m = /\sEI(?=[\s]|$)/.exec(src.slice(i));
        i = m ? i + m.index + 3 : n;
        out.painted = true;
      } else if (word === 'Tf') {
        font = operands.filter((o) => o.kind === 'name').at(-1)?.value;
      } else if (SHOW.has(word)) {
        const text = operands
          .filter((o) => o.kind === 'str')
          .map((o) => o.value)
          .join('');
        out.shows.push({ font, text });
        if (text.length > 0) out.painted = true;
      } else if (PAINT.has(word)) {
        out.painted = true;
      }
      operands = [];
    }
  }
  return out;
}

function isDingbats(font: PDFDict): boolean {
  const base = font.lookup(N('BaseFont'));
  if (base instanceof PDFName && /dingbat|zadb|symbol|wingding/i.test(base.decodeText())) return true;
  // An embedded symbolic font maps its codes as it likes: trust it.
  const desc = getDict(font, 'FontDescriptor');
  const flags = desc?.lookup(N('Flags'));
  const embedded = desc && (desc.has(N('FontFile')) || desc.has(N('FontFile2')) || desc.has(N('FontFile3')));
  return !!embedded && flags instanceof PDFNumber && (flags.asNumber() & 4) !== 0;
}

/**
 * Why an on-appearance would show no proper mark, or undefined when it looks fine (or cannot be
 * judged). `mark` is the ZapfDingbats character the widget asks for (/MK /CA or the default);
 * `off` is the widget's Off appearance, if any.
 */
export function brokenOnAppearance(on: PDFStream, mark: string, off?: PDFStream): string | undefined {
  // A form XObject needs its /BBox: without one (or with no area) every viewer skips it.
  const bbox = getNumbers(on.dict, 'BBox');
  if (bbox?.length !== 4 || !bbox.every(Number.isFinite)) return 'has no /BBox';
  if (bbox[0] === bbox[2] || bbox[1] === bbox[3]) return 'has an empty /BBox';
  const text = contentOf(on);
  if (text === undefined) return undefined;
  const s = scan(text);
  if (!s.painted) return 'draws nothing';
  const fonts = getDict(on.dict, 'Resources') && getDict(getDict(on.dict, 'Resources')!, 'Font');
  for (const show of s.shows) {
    if (show.text.length === 0) continue;
    const font = show.font !== undefined ? fonts?.lookup(PDFName.of(show.font)) : undefined;
    if (!(font instanceof PDFDict)) return `shows text with a font its resources lack (/${show.font ?? ''})`;
    if (show.text === mark && !isDingbats(font))
      return `shows the check character "${mark}" in a font that is not ZapfDingbats`;
  }
  if (off && off !== on) {
    const offText = contentOf(off);
    if (offText !== undefined && offText.trim() === text.trim()) return 'looks the same as Off';
    if (offText !== undefined && scan(offText).ops.join('\n') === s.ops.join('\n')) return 'looks the same as Off';
  }
  return undefined;
}
