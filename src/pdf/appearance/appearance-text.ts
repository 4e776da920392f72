// Variable-text layout for text fields, combo boxes and text signatures: auto size (/DA size 0),
// single line vertically centred, multiline wrapping, comb cells, /Q alignment.
//
// Fitting rules (constants in text-fit.ts); no glyph or line is ever drawn partly outside the box:
// - Single line, auto size: at most 12 pt and what the height allows; a long text shrinks down to
//   the readable minimum (6 pt, or the height-limited size when the box is lower than that); below
//   that it is cut after its last whole word (between characters for one long word), with a warning.
// - Single line, fixed /DA size (capped at the box height): text that overflows is cut the same way.
// - Numbers and dates (number/date fields, number/date/special format actions, or a value made of
//   digits and separators only, e.g. "1,234.50") are never cut: whatever the /DA size, they shrink
//   until they fit whole; below 6 pt that is reported as "shrunk".
// - Multiline: auto size tries 12 pt down to 6 pt in 0.5 pt steps (numbers/dates go on down to
//   1 pt); a line is drawn only when it lies wholly inside the box, and dropped lines are reported.
// - Comb: one character per cell, auto size as large as the cells allow (reported below 6 pt);
//   characters beyond MaxLen are dropped and reported.
import { FontNames, frameOps, type WidgetBox } from './appearance-stream.js';
import { num } from '../content-ops.js';
import type { TextStyle } from './appearance-da.js';
import { visualOrder } from '../fonts/bidi.js';
import type { FontSet } from '../fonts/fonts.js';
import { showUnits, unitsWidth, type LayoutUnit } from '../fonts/text-shaping.js';
import { MIN_READABLE_SIZE, cutToWidth, fitLineSize, type TextFit } from './text-fit.js';

/** Largest auto size; Acrobat grows text with tall fields, which looks wrong on printed forms. */
const MAX_AUTO_SIZE = 12;
/** Smallest comb auto size. */
const MIN_AUTO_SIZE = 4;
/** Smallest multiline size for numbers and dates (kept whole, however small). */
const MIN_WHOLE_MULTILINE = 1;
const LINE_GAP = 1.15;
/** Helvetica's ascender/descender (per 1 pt): the box we centre vertically. */
const ASCENT = 0.718;
const DESCENT = 0.207;

export interface TextLayoutOptions {
  multiline?: boolean;
  /** comb field: number of cells (MaxLen) */
  comb?: number;
  /** a number or date: shrink it as far as needed, never cut it (see text-fit.ts mustStayWhole) */
  whole?: boolean;
}

export interface TextAppearance {
  content: string;
  fonts: FontNames;
  /** the text did not fit and was cut (characters or lines left out) */
  clipped: boolean;
  /** how the text was fitted, for the field's warning */
  fit: TextFit;
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

/**
 * A lower bound of the lines wrap() makes at `maxWidth`: every line holds at most `maxWidth` of
 * non-space units, unless it is one unit wider than that (counted here as `maxWidth`).
 */
function fewestLines(glyphs: Glyph[], maxWidth: number): number {
  let total = 0;
  for (const g of glyphs) if (g.ch !== ' ') total += Math.min(g.w ?? 0, maxWidth);
  return Math.ceil(total / maxWidth - 1e-9);
}

function alignX(quadding: number, lineWidth: number, width: number, pad: number): number {
  if (quadding === 1) return (width - lineWidth) / 2;
  if (quadding === 2) return width - pad - lineWidth;
  return pad;
}

/** Lays out `text` in the widget box. */
export function layoutText(
  text: string,
  box: WidgetBox,
  style: TextStyle,
  fonts: FontSet,
  opts: TextLayoutOptions = {},
): TextAppearance {
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
  let fit: TextFit = { cut: false };
  // A fixed /DA size taller than the box would cut every glyph: shrink it to the box height.
  const fitHeight = innerH / (ASCENT + DESCENT);
  const fixed = style.size ? Math.min(style.size, fitHeight) : 0;
  // Centre capitals and digits (what form values mostly are); keep descenders inside when the box allows.
  const centredY = (size: number) =>
    Math.max((h - size * ASCENT) / 2, Math.min(size * DESCENT, (h - size * (ASCENT + DESCENT)) / 2 + size * DESCENT));
  /** Drawn below the readable size only to keep a number or date whole: reported. */
  // Whatever made it small (a number kept whole, a box lower than the text, a tiny /DA size), text
  // drawn below the readable size is reported.
  const shrunk = (size: number) => (glyphs.length > 0 && size < MIN_READABLE_SIZE - 0.01 ? size : undefined);

  if (opts.comb && opts.comb > 0 && !opts.multiline) {
    const cells = opts.comb;
    const cell = w / cells;
    const shown = visualOrder(glyphs.slice(0, cells)); // right-to-left text fills the cells from the right
    if (glyphs.length > cells) fit = { cut: true, chars: { shown: cells, total: glyphs.length } };
    const widest = Math.max(0.001, ...shown.map((g) => width([g])));
    const tallest = Math.min(MAX_AUTO_SIZE, innerH / LINE_GAP);
    // A fixed size still leaves each character inside its cell (wide CJK or Hangul glyphs).
    const size = fixed
      ? Math.min(fixed, (cell * 0.9) / widest)
      : Math.max(MIN_AUTO_SIZE / 2, Math.min(tallest, (cell * 0.9) / widest));
    // Narrow cells shrink every character (each stays whole): below the readable size, say so.
    if (!fit.cut) fit = { cut: false, shrunkTo: shrunk(size) };
    const first =
      style.quadding === 1 ? Math.floor((cells - shown.length) / 2) : style.quadding === 2 ? cells - shown.length : 0;
    const y = centredY(size);
    shown.forEach((g, i) => {
      const x = (first + i) * cell + (cell - width([g]) * size) / 2;
      body.push(`1 0 0 1 ${num(x)} ${num(y)} Tm ${showOps([g], size, names)}`);
    });
  } else if (opts.multiline) {
    // Baseline of the first line: room for one line only centres it like a single-line field.
    const firstY = (size: number) =>
      innerH < 2 * size * LINE_GAP
        ? centredY(size)
        : h - padY - size * ASCENT - (size * LINE_GAP - size * (ASCENT + DESCENT)) / 2;
    // Lines drawn whole: those whose descenders stay above the clip (the box inside its border).
    const whole = (count: number, size: number) => {
      const room = firstY(size) - size * DESCENT - box.border + 0.01;
      return Math.max(1, Math.min(count, Math.floor(room / (size * LINE_GAP)) + 1));
    };
    const wrapped = (size: number) => {
      const lines = wrap(glyphs, innerW / size);
      let n = lines.length;
      while (n > 0 && lines[n - 1].length === 0) n--; // trailing empty lines are not text
      return lines.slice(0, n);
    };
    let size = fixed;
    let lines: Glyph[][];
    if (size) {
      lines = wrapped(size);
      // A number or date in a fixed size: smaller rather than cut.
      while (opts.whole && size > MIN_WHOLE_MULTILINE && whole(lines.length, size) < lines.length) {
        size = Math.max(MIN_WHOLE_MULTILINE, size - 0.25);
        lines = wrapped(size);
      }
    } else {
      // Largest size (in 0.5 pt steps) at which every wrapped line fits whole.
      const start = Math.min(MAX_AUTO_SIZE, fitHeight);
      const floor = Math.min(start, opts.whole ? MIN_WHOLE_MULTILINE : MIN_READABLE_SIZE);
      size = start;
      // Sizes whose lines cannot all fit whatever the wrap are passed without wrapping: a value of
      // 100,000 characters would otherwise be wrapped at every step from 12 pt to 6 pt.
      while (size > floor && fewestLines(glyphs, innerW / size) > whole(Number.POSITIVE_INFINITY, size))
        size = Math.max(floor, size - 0.5);
      lines = wrapped(size);
      while (size > floor && whole(lines.length, size) < lines.length) {
        size = Math.max(floor, size - 0.5);
        lines = wrapped(size);
      }
    }
    const shown = lines.length ? whole(lines.length, size) : 0;
    if (shown < lines.length) fit = { cut: true, lines: { shown, total: lines.length } };
    else fit = { cut: false, shrunkTo: shrunk(size) };
    const lineHeight = size * LINE_GAP;
    let y = firstY(size);
    for (const line of lines.slice(0, shown)) {
      const x = alignX(quaddingFor(style.quadding, line), width(line) * size, w, padX);
      if (line.length) body.push(`1 0 0 1 ${num(x)} ${num(y)} Tm ${showOps(line, size, names)}`);
      y -= lineHeight;
    }
  } else {
    const natural = width(glyphs);
    const heightSize = Math.min(MAX_AUTO_SIZE, innerH / LINE_GAP + 1);
    let { size, cut } = fitLineSize(natural, innerW, heightSize, fixed, !!opts.whole);
    let shown = glyphs;
    if (cut) {
      shown = cutToWidth(glyphs, innerW / size, width, (g) => g.ch === ' ');
      // Not even the first character fits: an empty box says nothing, so shrink it whole instead.
      if (shown.length === 0) [shown, size, cut] = [glyphs, innerW / natural, false];
    }
    fit = cut
      ? { cut: true, chars: { shown: shown.length, total: glyphs.length } }
      : { cut: false, shrunkTo: shrunk(size) };
    const x = alignX(quaddingFor(style.quadding, shown), width(shown) * size, w, padX);
    const y = centredY(size);
    if (shown.length) body.push(`1 0 0 1 ${num(x)} ${num(y)} Tm ${showOps(shown, size, names)}`);
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
  return { content, fonts: names, clipped: fit.cut, fit };
}
