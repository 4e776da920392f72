// Our own embedding of a bundled TrueType font as a Type0 / CIDFontType2 font with Identity-H:
// content streams show GLYPH ids (as the shaper chose them: Arabic joining forms, Indic conjuncts,
// Thai marks), not code points, which pdf-lib's embedder cannot do (its encodeText maps code points).
//
// A CID is a (glyph, text) pair: the characters the shaper says the glyph stands for (a ligature or
// conjunct glyph stands for all of its characters). One glyph can stand for different characters
// (Arabic fonts share letter bodies between letters told apart by their dots), so each pair gets its
// own CID and the ToUnicode CMap maps every CID to its own text: extraction gives the characters back.
// A CIDToGIDMap stream maps CIDs to the subset's glyphs.
//
// CIDs and subset glyphs are assigned per document (FontSubsets, owned by the prepared template) in
// order of first use and the lists only grow (up to the bounds below), so the CIDs a render wrote are
// still valid for the next render of the same prepared template, and the encoded objects (deflated
// subset, CIDToGIDMap, ToUnicode, widths) are reused as long as a render needs no CID they lack;
// otherwise they are encoded again with the new glyphs appended.
//
// Like pdf-lib's PDFFont, a UnicodeFont has its ref from the start and writes its objects in embed(),
// called by doc.save() (it registers itself in the document's font list) or by renderPrepared.
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFDict,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFString,
  type PDFContext,
  type PDFDocument,
  type PDFObject,
  type PDFRef,
} from '@cantoo/pdf-lib';
import type { KitFont, KitGlyph, ParsedFont, ResolvedCluster } from './font-types.js';

/**
 * fontkit caches one Glyph object per glyph id, created with the characters of its first use, and
 * hands the cached object out again after shaping, whatever characters the glyph stands for this
 * time (Noto Sans Arabic draws fa and qaf with one body glyph). The characters are what ToUnicode
 * maps, so getGlyph answers with a view of the cached glyph carrying the characters asked for.
 */
export function withTrueCodePoints(font: KitFont): KitFont {
  const getGlyph = font.getGlyph.bind(font) as (id: number, chars?: number[]) => KitGlyph | null;
  (font as { getGlyph: (id: number, chars?: number[]) => KitGlyph | null }).getGlyph = (id, chars = []) => {
    const g = getGlyph(id, chars);
    if (!g || !chars.length || (g.codePoints.length === chars.length && g.codePoints.every((c, i) => c === chars[i])))
      return g;
    return Object.create(g, { codePoints: { value: chars } }) as KitGlyph;
  };
  return font;
}

/**
 * Every render of a template embeds the whole cached subset, glyphs of earlier renders included: the
 * price of not subsetting again. Past these bounds (checked when a render starts) the subset starts
 * over, so an output carries at most ~64 KiB of font it does not use (a few hundred CJK glyphs;
 * whole alphabets of Arabic, Hebrew, Thai or Devanagari fit well within).
 */
const MAX_CACHED_GLYPHS = 1000;
const MAX_CACHED_BYTES = 64 * 1024;
/** Runs (field values, words of them) a template remembers per font; past this it starts over. */
const MAX_CACHED_RUNS = 1024;

/** The objects of an embedded subset that only change when it grows, reused by every render until then. */
interface EncodedSubset {
  /** CIDs covered (cidGlyph.length when encoded) */
  cids: number;
  fontFile: PDFRawStream;
  cidToGid: PDFRawStream;
  toUnicode: PDFRawStream;
  /** FontDescriptor, CIDFontType2 and Type0 dictionaries, without their references to the above */
  descriptor: PDFDict;
  cidFont: PDFDict;
  type0: PDFDict;
}

/** The glyphs one document (template) uses from one font, and the last encoded subset. */
interface SubsetState {
  /** CID -> index of its glyph in `gids`; CID 0 is .notdef */
  cidGlyph: number[];
  /** CID -> the text its glyph stands for ('' for none) */
  cidText: string[];
  /** `${gid}:${text}` -> CID */
  cidOf: Map<string, number>;
  /** subset glyph n -> glyph id of the font (n = 0: .notdef) */
  gids: number[];
  glyphOf: Map<number, number>;
  fontFile?: { count: number; bytes: Uint8Array; tag: string };
  encoded?: EncodedSubset;
  /** `${rtl}\0${text}` -> the run's clusters with this subset's CIDs (valid while the state lives) */
  runs: Map<string, ResolvedCluster[]>;
}

/**
 * The subsets of one document, per font: a prepared template owns one for all its renders, so its
 * subsets grow as characters appear and are re-encoded only then.
 */
export class FontSubsets {
  private readonly byFont = new Map<string, SubsetState>();

  /** The subset state of font `key`, started over when it outgrew the bounds. */
  stateFor(key: string): SubsetState {
    let state = this.byFont.get(key);
    if (!state || state.cidGlyph.length > MAX_CACHED_GLYPHS || (state.fontFile?.bytes.length ?? 0) > MAX_CACHED_BYTES) {
      state = {
        cidGlyph: [0],
        cidText: [''],
        cidOf: new Map([['0:', 0]]),
        gids: [0],
        glyphOf: new Map([[0, 0]]),
        runs: new Map(),
      };
      this.byFont.set(key, state);
    }
    return state;
  }
}

interface FontList {
  fonts: { embed(): Promise<void> }[];
}

export class UnicodeFont {
  readonly ref: PDFRef;
  private readonly state: SubsetState;
  private embedded = false;

  constructor(
    private readonly doc: PDFDocument,
    readonly parsed: ParsedFont,
    subsets: FontSubsets,
  ) {
    this.state = subsets.stateFor(parsed.key);
    this.ref = doc.context.nextRef();
    (doc as unknown as FontList).fonts.push(this);
  }

  get unitsPerEm(): number {
    return this.parsed.font.unitsPerEm;
  }

  /** The clusters of a run drawn before by this template (same CIDs), or made by `resolve` and kept. */
  resolvedRun(text: string, rtl: boolean, resolve: () => ResolvedCluster[]): ResolvedCluster[] {
    const runs = this.state.runs;
    const key = `${rtl ? 1 : 0}\0${text}`;
    let hit = runs.get(key);
    if (!hit) {
      hit = resolve();
      if (runs.size >= MAX_CACHED_RUNS) runs.clear();
      runs.set(key, hit);
    }
    return hit;
  }

  /** The CID that shows glyph `gid` standing for `chars` (a string or its code points). */
  cid(gid: number, chars: string | readonly number[]): number {
    const s = this.state;
    const text = typeof chars === 'string' ? chars : chars.length ? String.fromCodePoint(...chars) : '';
    const key = `${gid}:${text}`;
    let cid = s.cidOf.get(key);
    if (cid === undefined) {
      if (s.cidGlyph.length > 0xffff) return 0;
      let glyph = s.glyphOf.get(gid);
      if (glyph === undefined) {
        glyph = s.gids.length;
        s.gids.push(gid);
        s.glyphOf.set(gid, glyph);
      }
      cid = s.cidGlyph.length;
      s.cidGlyph.push(glyph);
      s.cidText.push(text);
      s.cidOf.set(key, cid);
    }
    return cid;
  }

  /** The deflated subset, encoded again only when glyphs were added since the last time. */
  private fontFile(): NonNullable<SubsetState['fontFile']> {
    const s = this.state;
    if (s.fontFile && s.fontFile.count === s.gids.length) return s.fontFile;
    const subset = this.parsed.font.createSubset();
    // Glyph 0 is already in; the rest in order, so subset glyph n == gids[n] (composite glyphs'
    // components are appended after them by encode()).
    for (let i = 1; i < s.gids.length; i++) subset.includeGlyph(s.gids[i]);
    const tag = [
      ...createHash('sha1')
        .update(`${this.parsed.key}:${s.gids.join(',')}`)
        .digest(),
    ]
      .slice(0, 6)
      .map((b) => String.fromCharCode(65 + (b % 26)))
      .join('');
    s.fontFile = { count: s.gids.length, bytes: deflateSync(subset.encode()), tag };
    return s.fontFile;
  }

  /**
   * The streams and widths of the subset as it is now: built when CIDs were added since the last
   * render, else the very objects the last render wrote (renders only register them again).
   */
  private encoded(): EncodedSubset {
    const s = this.state;
    if (s.encoded && s.encoded.cids === s.cidGlyph.length) return s.encoded;
    const ctx = this.doc.context;
    const font = this.parsed.font;
    const { bytes, tag } = this.fontFile();
    const scale = 1000 / font.unitsPerEm;
    const glyphWidths = s.gids.map((gid) => Math.round((font.getGlyph(gid)?.advanceWidth ?? 0) * scale));
    const widths = s.cidGlyph.map((g) => glyphWidths[g]);
    const cidToGid = new Uint8Array(s.cidGlyph.length * 2);
    s.cidGlyph.forEach((g, cid) => {
      cidToGid[cid * 2] = g >> 8;
      cidToGid[cid * 2 + 1] = g & 0xff;
    });
    const flate = () => dictOf(ctx, { Filter: PDFName.of('FlateDecode') });
    const name = `${tag}+${(font.postscriptName ?? 'NotoSans').replace(/[^A-Za-z0-9-]/g, '')}`;
    const n = (v: number) => PDFNumber.of(Math.round(v * scale));
    s.encoded = {
      cids: s.cidGlyph.length,
      fontFile: PDFRawStream.of(flate(), bytes),
      cidToGid: PDFRawStream.of(flate(), deflateSync(cidToGid)),
      toUnicode: PDFRawStream.of(flate(), deflateSync(Buffer.from(toUnicodeCMap(s.cidText), 'latin1'))),
      descriptor: dictOf(ctx, {
        Type: PDFName.of('FontDescriptor'),
        FontName: PDFName.of(name),
        Flags: PDFNumber.of(4),
        FontBBox: arrayOf(ctx, [n(font.bbox.minX), n(font.bbox.minY), n(font.bbox.maxX), n(font.bbox.maxY)]),
        ItalicAngle: PDFNumber.of(font.italicAngle || 0),
        Ascent: n(font.ascent),
        Descent: n(font.descent),
        CapHeight: n(font.capHeight || font.ascent),
        StemV: PDFNumber.of(80),
      }),
      cidFont: dictOf(ctx, {
        Type: PDFName.of('Font'),
        Subtype: PDFName.of('CIDFontType2'),
        BaseFont: PDFName.of(name),
        CIDSystemInfo: dictOf(ctx, {
          Registry: PDFString.of('Adobe'),
          Ordering: PDFString.of('Identity'),
          Supplement: PDFNumber.of(0),
        }),
        DW: PDFNumber.of(widths[0] ?? 0),
        W: arrayOf(ctx, [
          PDFNumber.of(0),
          arrayOf(
            ctx,
            widths.map((w) => PDFNumber.of(w)),
          ),
        ]),
      }),
      type0: dictOf(ctx, {
        Type: PDFName.of('Font'),
        Subtype: PDFName.of('Type0'),
        BaseFont: PDFName.of(`${name}-Identity-H`),
        Encoding: PDFName.of('Identity-H'),
      }),
    };
    return s.encoded;
  }

  /**
   * Writes the font objects (once per document save / render). The dictionaries are the subset's
   * own, reused by every render and only pointed at this render's object numbers: a document has
   * one UnicodeFont per font at a time (FontSet), and a template's renders run one after another.
   */
  async embed(): Promise<void> {
    if (this.embedded) return;
    this.embedded = true;
    const ctx = this.doc.context;
    const enc = this.encoded();
    enc.descriptor.set(PDFName.of('FontFile2'), ctx.register(enc.fontFile));
    enc.cidFont.set(PDFName.of('FontDescriptor'), ctx.register(enc.descriptor));
    enc.cidFont.set(PDFName.of('CIDToGIDMap'), ctx.register(enc.cidToGid));
    enc.type0.set(PDFName.of('DescendantFonts'), arrayOf(ctx, [ctx.register(enc.cidFont)]));
    enc.type0.set(PDFName.of('ToUnicode'), ctx.register(enc.toUnicode));
    ctx.assign(this.ref, enc.type0);
  }
}

function dictOf(ctx: PDFContext, entries: Record<string, PDFObject>): PDFDict {
  const d = PDFDict.withContext(ctx);
  for (const [k, v] of Object.entries(entries)) d.set(PDFName.of(k), v);
  return d;
}

function arrayOf(ctx: PDFContext, items: PDFObject[]): PDFArray {
  const a = PDFArray.withContext(ctx);
  for (const it of items) a.push(it);
  return a;
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

export function utf16Hex(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += hex4(text.charCodeAt(i));
  return out;
}

/** A ToUnicode CMap with one bfchar entry per CID that stands for some text. */
function toUnicodeCMap(cidText: readonly string[]): string {
  const entries = cidText.map((t, cid) => [cid, t] as const).filter(([, t]) => t !== '');
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const chunk = entries.slice(i, i + 100);
    blocks.push(
      `${chunk.length} beginbfchar\n${chunk.map(([cid, t]) => `<${hex4(cid)}> <${utf16Hex(t)}>`).join('\n')}\nendbfchar`,
    );
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <ffff>',
    'endcodespacerange',
    ...blocks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}

/** A CID as the four hex digits a TJ string shows it with. */
export function cidHex(cid: number): string {
  return hex4(cid);
}
