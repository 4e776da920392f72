// Field detection in the bench: the corpus scores (the ground truth of test/helpers/detect-truth.ts:
// each form with its widgets removed, appearances not drawn) and the time to detect a 10-page form
// (the first 10 pages of the flattened US Courts B107, warm, in-process).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument } from '@cantoo/pdf-lib';
import { detectFields } from '../src/pdf/detect/detect.js';
import {
  addScores,
  flatTruth,
  HELD_OUT,
  rates,
  SCORE_HEADER,
  score,
  scoreRow,
  TUNED,
  type Score,
} from '../test/helpers/detect-truth.js';
import { timeIt, type Summary, type TimeOptions } from './stats.js';

const TEN_PAGE_SOURCE = 'uscourts-b107-financial-affairs.pdf';

export interface DetectBench {
  tuned: Score;
  heldOut: Score;
  /** markdown table: every real form, then the groups */
  table: string;
  tenPages: Summary;
  /** the target rows: what is measured, the figure, whether it passes */
  targets: { label: string; measured: string; ok: boolean }[];
}

/** The first `n` pages of a PDF, as a new file. */
async function firstPages(bytes: Uint8Array, n: number): Promise<Uint8Array> {
  const src = await PDFDocument.load(bytes, { updateMetadata: false });
  const out = await PDFDocument.create({ updateMetadata: false });
  const pages = await out.copyPages(src, [...Array(Math.min(n, src.getPageCount())).keys()]);
  for (const p of pages) out.addPage(p);
  return out.save({ useObjectStreams: false });
}

export async function benchDetect(
  corpusDir: string,
  opts: TimeOptions,
  log: (m: string) => void,
): Promise<DetectBench> {
  const read = (f: string) => new Uint8Array(readFileSync(path.join(corpusDir, 'pdfs', f)));
  const scores = new Map<string, Score>();
  for (const f of [...TUNED, ...HELD_OUT]) {
    log(`detect: ${f}`);
    const { flat, truth } = await flatTruth(read(f));
    scores.set(f, score(truth, (await detectFields(flat)).detections));
  }
  const tuned = addScores(TUNED.map((f) => scores.get(f)!));
  const heldOut = addScores(HELD_OUT.map((f) => scores.get(f)!));
  const table = [
    SCORE_HEADER,
    ...[...TUNED, ...HELD_OUT].map((f) => scoreRow(`${f}${TUNED.includes(f) ? ' (tuned)' : ''}`, scores.get(f)!)),
    scoreRow('**tuned on**', tuned),
    scoreRow('**held out**', heldOut),
    scoreRow('**all real forms**', addScores([tuned, heldOut])),
  ].join('\n');
  log('detect: 10-page form');
  const ten = await firstPages((await flatTruth(read(TEN_PAGE_SOURCE))).flat, 10);
  const tenPages = await timeIt(() => detectFields(ten), {
    iterations: Math.min(opts.iterations, 10),
    warmup: Math.min(opts.warmup, 2),
    maxSeconds: opts.maxSeconds * 2,
  });
  return { tuned, heldOut, table, tenPages, targets: detectTargets(tuned, heldOut, tenPages) };
}

/** The target rows: recall, precision and type accuracy on all real forms, and the 10-page time. */
function detectTargets(tuned: Score, heldOut: Score, tenPages: Summary): DetectBench['targets'] {
  const all = rates(addScores([tuned, heldOut]));
  const held = rates(heldOut);
  const pc = (v: number) => `${(100 * v).toFixed(1)} %`;
  return [
    {
      label: `field detection recall ≥ 90 % (all real corpus forms; held out alone ${pc(held.recall)})`,
      measured: pc(all.recall),
      ok: all.recall >= 0.9,
    },
    {
      label: `field detection precision ≥ 85 % (all real corpus forms; held out alone ${pc(held.precision)})`,
      measured: pc(all.precision),
      ok: all.precision >= 0.85,
    },
    {
      label: `field detection type right ≥ 95 % of matches (held out alone ${pc(held.type)})`,
      measured: pc(all.type),
      ok: all.type >= 0.95,
    },
    {
      label: `field detection of a 10-page form ≤ 2 s (${TEN_PAGE_SOURCE} pages 1-10, median)`,
      measured: `${(tenPages.median / 1000).toFixed(2)} s`,
      ok: tenPages.median <= 2000,
    },
  ];
}
