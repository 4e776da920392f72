// Forms that show the button defect classes of the form fidelity issue (22), built here with
// pdf-lib: the corpus is never edited. Each builder returns the bytes of a one-page form and says
// where its buttons are (PDF points, page 1).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import { PDFDict, PDFDocument, PDFName, PDFString, type PDFRef } from '@cantoo/pdf-lib';

const require = createRequire(import.meta.url);

export interface BuiltForm {
  /** a file name for reports */
  name: string;
  bytes: Uint8Array;
  /** each button widget's rectangle, in the order the builder added them */
  rects: number[][];
}

const BOX = 30;
const rectAt = (x: number, y: number) => [x, y, x + BOX, y + BOX];

/**
 * A radio group "pick" with one button per entry of `states`: each button's on-state is the PDF
 * name token written as given (`Patient#90s#20choice`, `#23d8#23a3`), byte for byte. With `opt`,
 * the field has /Opt (one export value per button).
 */
export async function radioGroup(name: string, states: string[], opt?: string[]): Promise<BuiltForm> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([300, 300]);
  page.drawText('Pick one', { x: 120, y: 270, size: 12 });
  const group = doc.getForm().createRadioGroup('pick');
  const rects = states.map((_, i) => rectAt(40, 220 - 50 * i));
  // Tokens with escapes go in as placeholders of their length, replaced in the saved bytes: pdf-lib
  // would decode their escapes if it were given them.
  const plain = (s: string) => /^[A-Za-z0-9]+$/.test(s);
  const holders = states.map((s, i) => (plain(s) ? s : `Z${i}`.padEnd(s.length, 'z')));
  for (const [i, h] of holders.entries())
    group.addOptionToPage(h, page, { x: rects[i][0], y: rects[i][1], width: BOX, height: BOX });
  // pdf-lib names the states "0", "1"... (with /Opt): rename them.
  group.acroField.getWidgets().forEach((w, i) => {
    const ap = w.dict.lookup(PDFName.of('AP'), PDFDict);
    for (const key of ['N', 'D']) {
      const states = ap.lookup(PDFName.of(key), PDFDict);
      const on = states.keys().find((k) => k !== PDFName.of('Off'))!;
      const stream = states.get(on)!;
      states.delete(on);
      states.set(PDFName.of(holders[i]), stream);
    }
  });
  const field = group.acroField.dict;
  if (opt) field.set(PDFName.of('Opt'), doc.context.obj(opt.map((o) => PDFString.of(o))));
  else field.delete(PDFName.of('Opt'));
  let text = Buffer.from(await doc.save({ useObjectStreams: false, updateFieldAppearances: false })).toString('latin1');
  holders.forEach((h, i) => {
    if (h === states[i]) return;
    if (h.length !== states[i].length || states[i].length < 3) throw new Error(`token "${states[i]}" is too short`);
    text = text.replace(new RegExp(`/${h}(?=[\\s/<>\\[\\]()])`, 'g'), `/${states[i]}`);
  });
  return { name, bytes: new Uint8Array(Buffer.from(text, 'latin1')), rects };
}

/** A one-checkbox form "agree" and its pieces, for the builders below. */
async function checkbox() {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 200]);
  page.drawText('I agree', { x: 110, y: 75, size: 10 });
  const box = doc.getForm().createCheckBox('agree');
  const rect = rectAt(60, 60);
  box.addToPage(page, { x: rect[0], y: rect[1], width: BOX, height: BOX, borderWidth: 1 });
  const widget = box.acroField.getWidgets()[0].dict;
  const ap = widget.lookup(PDFName.of('AP'), PDFDict);
  return { doc, ctx: doc.context, acroForm: doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict), ap, rect };
}

/**
 * Class 5: a form with /NeedAppearances true whose check box is reached only from the page's
 * /Annots (not from /AcroForm /Fields), drawn with an embedded TrueType subset named like a
 * ZapfDingbats face, its states held in /AP /N and /D through references (as a macOS re-save writes).
 */
export async function orphanTrueTypeCheckbox(): Promise<BuiltForm> {
  const { doc, ctx, acroForm, ap, rect } = await checkbox();
  const ttf = fs.readFileSync(require.resolve('@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf'));
  const file = ctx.register(ctx.flateStream(ttf, { Length1: ttf.length }));
  const descriptor = ctx.register(
    ctx.obj({
      Type: 'FontDescriptor',
      FontName: 'AAAAAI+ZapfDingbatsITC',
      Flags: 4,
      FontBBox: [0, -143, 976, 814],
      ItalicAngle: 0,
      Ascent: 814,
      Descent: -177,
      CapHeight: 723,
      StemV: 0,
      FontFile2: file,
    }),
  );
  const font = ctx.register(
    ctx.obj({
      Type: 'Font',
      Subtype: 'TrueType',
      BaseFont: 'AAAAAI+ZapfDingbatsITC',
      FirstChar: 33,
      LastChar: 33,
      Widths: [600],
      FontDescriptor: descriptor,
    }),
  );
  // "!" in the subset stands for the tick (a real subset maps it to the check glyph).
  const on = ctx.register(
    ctx.stream('q 1 1 28 28 re W n BT 0 g /TT2 1 Tf 26 0 0 26 10 5 Tm (!) Tj ET Q', {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, BOX, BOX],
      Resources: { Font: { TT2: font } },
    }),
  );
  for (const key of ['N', 'D']) {
    const states = ap.lookup(PDFName.of(key), PDFDict);
    states.set(PDFName.of('Yes'), on);
    ap.set(PDFName.of(key), ctx.register(states));
  }
  acroForm.set(PDFName.of('Fields'), ctx.obj([]));
  acroForm.set(PDFName.of('NeedAppearances'), ctx.obj(true));
  const bytes = await doc.save({ useObjectStreams: false, updateFieldAppearances: false });
  return { name: 'built-orphan-truetype-checkbox.pdf', bytes, rects: [rect] };
}

/** Class 6: a check box whose on-appearance has no /BBox and whose Off state is a name, not a stream. */
export async function checkboxWithoutBBox(): Promise<BuiltForm> {
  const { doc, ctx, ap, rect } = await checkbox();
  const zadb: PDFRef = ctx.register(ctx.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'ZapfDingbats' }));
  const on = ctx.register(
    ctx.stream('q BT 0 g /ZaDb 24 Tf 4 7 Td (4) Tj ET Q', {
      Type: 'XObject',
      Subtype: 'Form',
      Resources: { Font: { ZaDb: zadb } },
    }),
  );
  ap.set(PDFName.of('N'), ctx.obj({ Yes: on, Off: PDFName.of('Off') }));
  ap.delete(PDFName.of('D'));
  const bytes = await doc.save({ useObjectStreams: false, updateFieldAppearances: false });
  return { name: 'built-checkbox-without-bbox.pdf', bytes, rects: [rect] };
}

/** Every built form of the classes, for the reader matrix. */
export async function buttonClassForms(): Promise<BuiltForm[]> {
  return [
    await radioGroup('built-radio-pdfdoc-state.pdf', ['Other#20choice', 'Patient#90s#20choice']),
    await radioGroup('built-radio-hash-state.pdf', ['#23d8#23a3', '#23D8#23A3']),
    await radioGroup('built-radio-shared-export.pdf', ['0', '1'], ['Sì', 'Sì']),
    await orphanTrueTypeCheckbox(),
    await checkboxWithoutBBox(),
  ];
}
