// Field detection on hostile flat PDFs: every case ends with a capped result and a warning saying what
// was left out (or nothing to find), never an endless run. Time is not asserted here (bench/ measures
// it); the caps are what keep it bounded, and each case shows its cap at work.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DETECT_LIMITS, detectFields } from '../../src/pdf/detect/detect.js';
import { glyphByGlyph, manyFlatPages, manySegments, tinySquares } from '../helpers/hostile-flat.js';

describe('field detection on hostile input', { timeout: 240_000 }, () => {
  it('2,000 pages: the first pages of the page budget are read, the rest named in a warning', async () => {
    const r = await detectFields(manyFlatPages(2000));
    expect(r.pageCount).toBe(2000);
    const last = Math.max(...r.detections.map((d) => d.page));
    expect(last).toBeLessThanOrEqual(DEFAULT_DETECT_LIMITS.maxPages);
    expect(r.warnings.join(' ')).toMatch(/2000 pages; fields were detected on the first 200 only|time budget ran out/);
  });

  it('a page budget of time: pages not reached in time are named, not waited for', async () => {
    const r = await detectFields(manyFlatPages(300), undefined, { maxMs: 1, maxPages: 300 });
    expect(r.warnings.some((w) => /time budget ran out/.test(w))).toBe(true);
    expect(r.detections.length).toBeLessThan(300);
  });

  it('100,000 path segments on one page: the drawing is read up to the segment cap', async () => {
    const r = await detectFields(manySegments(100_000));
    expect(r.warnings).toEqual([
      `page 1: more than ${DEFAULT_DETECT_LIMITS.maxSegmentsPerPage} lines drawn; the rest was not read`,
    ]);
    expect(r.detections.length).toBeLessThanOrEqual(DEFAULT_DETECT_LIMITS.maxCandidatesPerPage);
  });

  it('a page of nothing but tiny squares: candidates stop at the per-page cap', async () => {
    const r = await detectFields(tinySquares(4_000));
    expect(r.detections.length).toBe(DEFAULT_DETECT_LIMITS.maxCandidatesPerPage);
    expect(r.detections.every((d) => d.type === 'checkbox')).toBe(true);
    expect(r.warnings).toEqual([
      `page 1: more than ${DEFAULT_DETECT_LIMITS.maxCandidatesPerPage} candidate fields; the rest left out`,
    ]);
  });

  it('text drawn glyph by glyph still reads as words for the captions', async () => {
    const r = await detectFields(glyphByGlyph(6_000));
    expect(r.warnings).toEqual([]);
    expect(r.detections).toHaveLength(1);
    expect(r.detections[0].type).toBe('text');
  });

  it('a text item cap: a page with more text than the cap is read without its text, with a warning', async () => {
    const r = await detectFields(glyphByGlyph(3_000), undefined, { maxTextItemsPerPage: 10 });
    expect(r.warnings[0]).toMatch(/more than 10 pieces of text; read without its text/);
    expect(r.detections[0].label).toBeNull();
  });
});
