// Variable-text layout for text fields, combo boxes and text signatures: auto size (/DA size 0),
// single line vertically centred, multiline wrapping, comb cells, /Q alignment. Text that cannot
// fit is shrunk (auto size) or clipped to the widget (fixed size), never drawn outside it.
import { FontNames, frameOps, num, type WidgetBox } from './appearance-stream.js';
import type { TextStyle } from './appearance-da.js';
import { visualOrder } from './bidi.js';
import type { FontSet } from './fonts.js';
import { showUnits, unitsWidth, type LayoutUnit } from './text-shaping.js';

/** Largest auto size; Acrobat grows text with tall fields, which looks wrong on printed forms. */
const MAX_AUTO_SIZE = 12;
/** Smallest auto size before we give up shrinking and clip. */
const MIN_AUTO_SIZE = 4;
const LINE_GAP = 1.15;
/** Helvetica's ascender/descender (per 1 pt): the box we centre vertically. */
const ASCENT = 0.718;
const DESCENT = 0.207;

export interface TextLayoutOptions {
  multiline?: boolean;
  /** comb field: number of cells (MaxLen) */
  comb?: number;
}

export interface TextAppearance {
  content: string;
  fonts: FontNames;
  /** the text did not fit and was clipped */
  clipped: boolean;
}

/**
 * A layout unit (text-shaping.ts): a character of a standard face, or a shaped cluster of a bundled
 * Unicode font (a ligature, conjunct or base + marks), with its bidi level. Units are in logical
 * order; showOps puts each line in visual order.
 */
type Glyph = LayoutUnit;

/** Width at 1 pt, run by run (kerning inside a run is kept). */
function width(glyphs: Glyph[]): number {
  return unitsWidth(glyphs);
}

/** Text-showing operators for one line starting at the current text position. */
function showOps(glyphs: Glyph[], size: number, names: FontNames): string {
  return showUnits(glyphs, size, (font) => names.name(font));
}

/**
 * /Q for a line: a right-to-left paragraph (its first strong character is Arabic, Hebrew, ...) in a
 * field left-aligned by default is right-aligned, where its reading starts, as viewers do for RTL
 * input. Explicit centring or right alignment is kept.
 */
function quaddingFor(quadding: number, line: Glyph[]): number {
  return quadding === 0 && line.length > 0 && line[0].para === 1 ? 2 : quadding;
}

/** Greedy word wrap at 1 pt; words longer than a line are broken between characters. */
function wrap(glyphs: Glyph[], maxWidth: number): Glyph[][] {
  const lines: Glyph[][] = [];
  const paragraphs: Glyph[][] = [[]];
  for (let i = 0; i < glyphs.length; i++) {
    const g = glyphs[i];
    if (g.ch === '\r' && glyphs[i + 1]?.ch === '\n') continue;
    if (g.ch === '\n' || g.ch === '\r') paragraphs.push([]);
    else paragraphs[paragraphs.length - 1].push(g);
  }
  for (const para of paragraphs) {
    let line: Glyph[] = [];
    let lineWidth = 0;
    const words: Glyph[][] = [];
    for (const g of para) {
      if (g.ch === ' ' || words.length === 0) words.push([]);
      words[words.length - 1].push(g); // a word carries its leading space
    }
    if (words.length === 0) lines.push([]);
    for (let word of words) {
      let w = width(word);
      if (line.length > 0 && lineWidth + w > maxWidth) {
        lines.push(line);
        if (word[0].ch === ' ') word = word.slice(1);
        w = width(word);
        line = [];
        lineWidth = 0;
      }
      if (w > maxWidth) {
        for (const g of word) {
          const gw = width([g]);
          if (line.length > 0 && lineWidth + gw > maxWidth) {
            lines.push(line);
            line = [];
            lineWidth = 0;
          }
          line.push(g);
          lineWidth += gw;
        }
        continue;
      }
      line.push(...word);
      lineWidth += w;
    }
    if (line.length > 0) lines.push(line);
  }
  return lines;
}

function alignX(quadding: number, lineWidth: number, width: number, pad: number): number {
  if (quadding === 1) return (width - lineWidth) / 2;
  if (quadding === 2) return width - pad - lineWidth;
  return pad;
}

/** Lays out `text` in the widget box. `fonts.prepare(text)` must have been awaited. */
export function layoutText(text: string, box: WidgetBox, style: TextStyle, fonts: FontSet, opts: TextLayoutOptions = {}): TextAppearance {
  const names = new FontNames();
  const { width: w, height: h } = box;
  const clean = opts.multiline ? text.replace(/\t/g, ' ') : text.replace(/[\r\n\t]+/g, ' ');
  // Text that is WinAnsi apart from its line breaks stays in the field's own face (the break units
  // only split paragraphs in wrap()); anything else is shaped with the fallback chain.
  const glyphs = fonts.shape(clean, style.font);
  const padX = 2 + box.border;
  const padY = 1 + box.border;
  const innerW = Math.max(w - 2 * padX, 1);
  const innerH = Math.max(h - 2 * padY, 1);
  const body: string[] = [];
  let clipped = false;
  // A fixed /DA size taller than the box would cut every glyph: shrink it to the box height.
  const fitHeight = innerH / (ASCENT + DESCENT);
  const fixed = style.size ? Math.min(style.size, fitHeight) : 0;
  // Centre capitals and digits (what form values mostly are); keep descenders inside when the box allows.
  const centredY = (size: number) =>
    Math.max((h - size * ASCENT) / 2, Math.min(size * DESCENT, (h - size * (ASCENT + DESCENT)) / 2 + size * DESCENT));

  if (opts.comb && opts.comb > 0 && !opts.multiline) {
    const cells = opts.comb;
    const cell = w / cells;
    const shown = visualOrder(glyphs.slice(0, cells)); // right-to-left text fills the cells from the right
    clipped = glyphs.length > cells;
    const widest = Math.max(0.001, ...shown.map((g) => width([g])));
    const size = fixed || Math.max(MIN_AUTO_SIZE / 2, Math.min(MAX_AUTO_SIZE, innerH / LINE_GAP, (cell * 0.9) / widest));
    const first = style.quadding === 1 ? Math.floor((cells - shown.length) / 2) : style.quadding === 2 ? cells - shown.length : 0;
    const y = centredY(size);
    shown.forEach((g, i) => {
      const x = (first + i) * cell + (cell - width([g]) * size) / 2;
      body.push(`1 0 0 1 ${num(x)} ${num(y)} Tm ${showOps([g], size, names)}`);
    });
  } else if (opts.multiline) {
    let size = fixed;
    let lines: Glyph[][];
    if (size) {
      lines = wrap(glyphs, innerW / size);
    } else {
      // Largest size (in 0.5 pt steps) at which the wrapped text fits the height.
      size = MAX_AUTO_SIZE;
      lines = wrap(glyphs, innerW / size);
      while (size > MIN_AUTO_SIZE && lines.length * size * LINE_GAP > innerH) {
        size -= 0.5;
        lines = wrap(glyphs, innerW / size);
      }
    }
    const lineHeight = size * LINE_GAP;
    // Room for one line only: centre it like a single-line field instead of hugging the top.
    let y = innerH < 2 * lineHeight ? centredY(size) : h - padY - size * ASCENT - (lineHeight - size * (ASCENT + DESCENT)) / 2;
    clipped = y - (lines.length - 1) * lineHeight < padY - size * DESCENT - 0.5;
    for (const line of lines) {
      if (y < -lineHeight) break; // below the box: clipped anyway
      const x = alignX(quaddingFor(style.quadding, line), width(line) * size, w, padX);
      if (line.length) body.push(`1 0 0 1 ${num(x)} ${num(y)} Tm ${showOps(line, size, names)}`);
      y -= lineHeight;
    }
  } else {
    const natural = width(glyphs);
    let size = fixed;
    if (!size) {
      size = Math.min(MAX_AUTO_SIZE, innerH / LINE_GAP + 1);
      if (natural * size > innerW) size = Math.max(innerW / natural, Math.min(MIN_AUTO_SIZE / 2, size));
    }
    clipped = natural * size > innerW + 0.01;
    // Overflowing text starts at the left edge whatever /Q says, so its beginning stays readable.
    // (For a right-to-left value the beginning is at the right edge.)
    const x = alignX(clipped ? (glyphs[0]?.para === 1 ? 2 : 0) : quaddingFor(style.quadding, glyphs), natural * size, w, padX);
    const y = centredY(size);
    if (glyphs.length) body.push(`1 0 0 1 ${num(x)} ${num(y)} Tm ${showOps(glyphs, size, names)}`);
  }

  const frame = frameOps(box);
  const content = [
    frame,
    '/Tx BMC q',
    `${num(box.border)} ${num(box.border)} ${num(w - 2 * box.border)} ${num(h - 2 * box.border)} re W n`,
    body.length ? `BT ${style.color}\n${body.join('\n')}\nET` : '',
    'Q EMC',
  ]
    .filter(Boolean)
    .join('\n');
  return { content, fonts: names, clipped };
}
