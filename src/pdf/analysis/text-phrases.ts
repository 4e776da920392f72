// Text runs joined into phrases: the words of one line that a reader takes together. A phrase
// ends at a gap wider than about an em (a column gap, or the space a field sits in).
import type { TextRun } from './page-text.js';

export interface Phrase {
  text: string;
  x0: number;
  x1: number;
  /** baseline */
  y: number;
  size: number;
  /** approximate glyph box: descender to cap height */
  bottom: number;
  top: number;
}

/** Runs closer than this (in ems) on one baseline are one phrase. */
const JOIN_GAP_EM = 0.9;
/** Baselines closer than this (in ems) are one line. */
const SAME_LINE_EM = 0.3;

function phraseOf(runs: TextRun[]): Phrase {
  let text = '';
  let prev: TextRun | undefined;
  for (const r of runs) {
    const gap = prev ? r.x0 - prev.x1 : 0;
    if (prev && gap > 0.12 * r.size && !text.endsWith(' ') && !r.text.startsWith(' ')) text += ' ';
    text += r.text;
    prev = r;
  }
  const main = runs.reduce((a, b) => (b.size > a.size ? b : a));
  const { size, y } = main;
  return {
    text: text.replace(/\s+/g, ' ').trim(),
    x0: Math.min(...runs.map((r) => r.x0)),
    x1: Math.max(...runs.map((r) => r.x1)),
    y,
    size,
    bottom: y - 0.25 * size,
    top: y + 0.8 * size,
  };
}

/** One line's runs (left to right) cut into phrases at wide gaps; a run drawn twice (fake bold) counts once. */
function splitLine(line: TextRun[]): Phrase[] {
  line.sort((a, b) => a.x0 - b.x0);
  const out: Phrase[] = [];
  let cur: TextRun[] = [];
  for (const r of line) {
    const last = cur[cur.length - 1];
    if (last && r.text === last.text && Math.abs(r.x0 - last.x0) < 0.5 * r.size) continue;
    if (last && r.x0 - Math.max(...cur.map((c) => c.x1)) > JOIN_GAP_EM * Math.max(r.size, last.size)) {
      out.push(phraseOf(cur));
      cur = [];
    }
    cur.push(r);
  }
  if (cur.length) out.push(phraseOf(cur));
  return out.filter((p) => p.text !== '');
}

/**
 * Superscripts ("1ère", "2ème") and subscripts ("O2") sit off their line in a smaller size: a line of
 * small runs just above or below a line of larger ones joins it.
 */
function withSuperscripts(lines: TextRun[][]): TextRun[][] {
  const sizeOf = (l: TextRun[]) => Math.max(...l.map((r) => r.size));
  const out: TextRun[][] = [];
  for (const line of lines) {
    const size = sizeOf(line);
    const short = line.reduce((n, r) => n + r.text.trim().length, 0) <= 4;
    // right beside a run of the larger line, as "ère" is beside the "1" of "1ère"
    const beside = (m: TextRun[]) =>
      m.some((b) => line.some((r) => r.x0 - b.x1 < 0.5 * b.size && b.x0 - r.x1 < 0.5 * b.size));
    const base = lines.find(
      (m) =>
        short && m !== line && sizeOf(m) > 1.15 * size && Math.abs(line[0].y - m[0].y) < 0.6 * sizeOf(m) && beside(m),
    );
    if (base) base.push(...line);
    else out.push(line);
  }
  return out;
}

/** The page's phrases, top to bottom. */
export function toPhrases(runs: TextRun[]): Phrase[] {
  const sorted = [...runs].sort((a, b) => b.y - a.y || a.x0 - b.x0);
  const lines: TextRun[][] = [];
  let line: TextRun[] = [];
  for (const r of sorted) {
    const head = line[0];
    if (head && Math.abs(head.y - r.y) > SAME_LINE_EM * Math.min(head.size, r.size)) {
      lines.push(line);
      line = [];
    }
    line.push(r);
  }
  if (line.length) lines.push(line);
  return withSuperscripts(lines).flatMap(splitLine);
}
