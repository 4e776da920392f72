// Types shared by the font modules: the parts of fontkit we use, a parsed bundled font, and shaped
// clusters (document-independent in the library's cache, with one template's CIDs once resolved).
// Kept apart so the modules that make and consume them import this floor instead of each other.

/** The parts of a fontkit font we use. */
export interface KitGlyph {
  id: number;
  codePoints: number[];
  advanceWidth: number;
}

export interface KitFont {
  unitsPerEm: number;
  ascent: number;
  descent: number;
  capHeight: number;
  italicAngle: number;
  bbox: { minX: number; minY: number; maxX: number; maxY: number };
  postscriptName: string | null;
  hasGlyphForCodePoint(cp: number): boolean;
  glyphForCodePoint(cp: number): KitGlyph;
  getGlyph(id: number): KitGlyph | null;
  layout(
    text: string,
    features?: unknown,
    script?: unknown,
    language?: unknown,
    direction?: 'ltr' | 'rtl',
  ): {
    glyphs: KitGlyph[];
    positions: { xAdvance: number; yAdvance: number; xOffset: number; yOffset: number }[] | null;
  };
  createSubset(): { includeGlyph(g: number): number; encode(): Uint8Array };
}

/** A bundled font, parsed once per process. */
export interface ParsedFont {
  /** stable key (the package file) */
  key: string;
  font: KitFont;
}

/** One glyph of a shaped cluster, independent of any document (CIDs are assigned per template). */
export interface ShapedGlyph {
  gid: number;
  /** the characters the glyph stands for (its ToUnicode text) */
  text: string;
  /** advance, offsets and own width in thousandths of the font size */
  adv: number;
  w0: number;
  dx: number;
  dy: number;
}

/** A shaping cluster of a word (see text-shaping.ts). */
export interface ShapedCluster {
  ch: string;
  glyphs: ShapedGlyph[];
  w: number;
  actualText?: string;
}

/** One glyph of a cluster; all values in thousandths of the font size (text space units / 1000). */
export interface PlacedGlyph {
  /** the glyph's CID in the template's subset, as the four hex digits TJ shows (made once per run) */
  hex: string;
  /** advance the shaper wants */
  adv: number;
  /** the glyph's own width (the /W entry the viewer advances by) */
  w0: number;
  dx: number;
  dy: number;
}

/** A cluster with the CIDs of one template's subset: what a run of that template resolves to. */
export interface ResolvedCluster {
  ch: string;
  glyphs: PlacedGlyph[];
  w: number;
  actualText?: string;
}
