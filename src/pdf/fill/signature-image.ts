// Signature fields: a PNG/JPEG drawn inside each widget, centred with its aspect ratio kept, or a
// text signature laid out like a single-line text field. /V is left alone: on a Sig field it must
// be a signature dictionary, which an image is not.
import type { PDFImage } from '@cantoo/pdf-lib';
import { formXObject, frameOps, setNormalAppearance, widgetBox } from '../appearance/appearance-stream.js';
import { num } from '../content-ops.js';
import type { RawField } from '../field-tree.js';
import { drawTextWidgets } from './field-text.js';
import { fieldLabel, type FillContext } from './fill-context.js';
import { N } from '../pdf-objects.js';

/** Inset so the image does not touch the widget border. */
const PAD = 1;

function signed(field: RawField): boolean {
  return field.dict.lookup(N('V')) !== undefined;
}

export async function fillSignatureImage(
  fc: FillContext,
  field: RawField,
  bytes: Uint8Array,
  format: 'png' | 'jpeg',
): Promise<void> {
  if (signed(field)) {
    fc.warnings.push(`field "${fieldLabel(fc, field)}" is already digitally signed; not drawn over`);
    return;
  }
  let image: PDFImage;
  try {
    image = format === 'png' ? await fc.doc.embedPng(bytes) : await fc.doc.embedJpg(bytes);
  } catch {
    fc.warnings.push(
      `field "${fieldLabel(fc, field)}": the ${format.toUpperCase()} image could not be read; not drawn`,
    );
    return;
  }
  for (const widget of field.widgets) {
    const box = widgetBox(widget);
    if (!box) continue;
    const availW = Math.max(box.width - 2 * (PAD + box.border), 1);
    const availH = Math.max(box.height - 2 * (PAD + box.border), 1);
    const scale = Math.min(availW / image.width, availH / image.height);
    const w = image.width * scale;
    const h = image.height * scale;
    const x = (box.width - w) / 2;
    const y = (box.height - h) / 2;
    const content = `${frameOps(box)}\nq ${num(w)} 0 0 ${num(h)} ${num(x)} ${num(y)} cm /Im0 Do Q`;
    const res = fc.ctx.obj({ XObject: { Im0: image.ref } });
    setNormalAppearance(widget, formXObject(widget, box, content, res));
  }
}

export function fillSignatureText(fc: FillContext, field: RawField, text: string | null): void {
  if (signed(field)) {
    fc.warnings.push(`field "${fieldLabel(fc, field)}" is already digitally signed; not drawn over`);
    return;
  }
  drawTextWidgets(fc, field, text ?? '', {});
}
