// A diagonal, semi-transparent text across every page (plans with a watermark). Drawn in the
// page's visible orientation: the text runs corner to corner as the reader sees the page.
import { StandardFonts } from '@cantoo/pdf-lib';
import { num } from '../content-ops.js';
import type { FillContext } from './fill-context.js';
import { pageRotation, visibleBox } from '../page-geometry.js';
import type { PageNode } from '../pages.js';
import type { PageWriter } from '../writer/page-content.js';
import { showUnits, unitsWidth } from '../fonts/text-shaping.js';

const OPACITY = 0.25;
/** Share of the page diagonal the text spans. */
const SPAN = 0.7;
const MAX_SIZE = 96;

export function watermark(fc: FillContext, pages: PageNode[], writer: PageWriter, text: string): void {
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) return;
  const units = fc.fonts.shape(line, fc.fonts.standardFont(StandardFonts.HelveticaBold));
  const width1 = unitsWidth(units);
  if (width1 <= 0) return;
  const gs = fc.ctx.register(fc.ctx.obj({ Type: 'ExtGState', ca: OPACITY, CA: OPACITY }));
  for (const { dict: page } of pages) {
    const [x0, y0, x1, y1] = visibleBox(page);
    const rotate = pageRotation(page);
    const [w, h] = [x1 - x0, y1 - y0];
    const [vw, vh] = rotate % 180 ? [h, w] : [w, h];
    const size = Math.min(MAX_SIZE, (SPAN * Math.hypot(vw, vh)) / width1);
    // Visible angle, turned back into page space: the viewer rotates the page clockwise by /Rotate.
    const angle = Math.atan2(vh, vw) + (rotate * Math.PI) / 180;
    const [c, s] = [Math.cos(angle), Math.sin(angle)];
    const gsName = writer.addResource(page, 'ExtGState', gs);
    const shows = showUnits(units, size, (font) => writer.addResource(page, 'Font', font.ref));
    writer.append(
      page,
      `q /${gsName} gs 0.45 g ${num(c)} ${num(s)} ${num(-s)} ${num(c)} ${num(x0 + w / 2)} ${num(y0 + h / 2)} cm ` +
        `BT 1 0 0 1 ${num((-width1 * size) / 2)} ${num(-size * 0.35)} Tm ${shows} ET Q`,
    );
  }
}
