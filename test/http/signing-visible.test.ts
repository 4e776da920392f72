import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PDFDocument, degrees } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { editFields } from '../../src/pdf/edit/edit-fields.js';
import { makeIdentity, opensslVerify, pdfsig } from '../helpers/signing.js';

// Issue 26, visible signatures: a template with a signature field (/FT /Sig) is signed into that field,
// whose appearance names the signer, the date and the reason, on the field's page and rectangle; one
// without stays invisible. Flattened, the signature is a new field where the form's was; not flattened,
// the form's own field is signed. Both verified by pdfsig and openssl; the page is looked at (pixels).

const corpus = corpusDir();
const pdf = (name: string) => readFileSync(path.join(corpus!, 'pdfs', name));
/** PDFBox's basic fields sample: text fields and one signature field, on page 1 */
const WITH_SIG = 'pdfbox-acroforms-basic-fields.pdf';

interface Field {
  name: string;
  type: string;
  pdfMeta: { originalName: string; page: number; rect: [number, number, number, number] };
}

/** Signers' names in other scripts than Latin-1: Latin Extended, Cyrillic, CJK, Arabic (right to left). */
const NAMES = ['Zoë Ðorđević', 'Łukasz Żółć', 'Иван Петров', '山田太郎', 'محمد علي'];

/** A word pdftotext -bbox found on a page: its text and box (top-left origin, the page as displayed). */
interface Word {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

function wordsOf(file: string, page: number): Word[] {
  const html = execFileSync('pdftotext', ['-bbox', '-f', String(page), '-l', String(page), file, '-']).toString();
  return [
    ...html.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g),
  ].map((m) => ({ x0: Number(m[1]), y0: Number(m[2]), x1: Number(m[3]), y1: Number(m[4]), text: m[5] }));
}

/** Dark pixels (grey under 200) inside a PDF-space rectangle of a page rendered as a PGM at `dpi`. */
function inkIn(pgm: Buffer, pageHeightPt: number, rect: number[], dpi: number): number {
  // P5 header: magic, width, height, maxval, then one byte per pixel
  const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.subarray(0, 64).toString('latin1'))!;
  const [width, height] = [Number(header[1]), Number(header[2])];
  const data = pgm.subarray(header[0].length);
  const k = dpi / 72;
  const [x0, x1] = [Math.floor(rect[0] * k), Math.ceil(rect[2] * k)];
  const [y0, y1] = [Math.floor((pageHeightPt - rect[3]) * k), Math.ceil((pageHeightPt - rect[1]) * k)];
  let n = 0;
  for (let y = Math.max(0, y0); y < Math.min(height, y1); y++)
    for (let x = Math.max(0, x0); x < Math.min(width, x1); x++) if (data[y * width + x] < 200) n++;
  return n;
}

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(
    `visible signatures [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      let dir: string;
      let id: ReturnType<typeof makeIdentity>;
      let tpl: string;
      let sig: Field;
      let text: Field;

      beforeAll(async () => {
        dir = mkdtempSync(path.join(tmpdir(), 'formcast-visible-'));
        id = makeIdentity(dir, 'visible');
        s = await startServer(db.name);
        const up = await api(s, s.b).post('/v1/templates', uploadForm(pdf(WITH_SIG), 'basic.pdf'));
        expect(up.status, JSON.stringify(up.json)).toBe(201);
        tpl = up.json.data.id;
        const fields = (await api(s, s.b).get(`/v1/templates/${tpl}/schema`)).json.data.schema.fields as Field[];
        sig = fields.find((f) => f.type === 'signature')!;
        text = fields.find((f) => f.type === 'text')!;
        expect(sig).toBeDefined();
        const cert = await api(s, s.b).post('/v1/signing-certificates', { pkcs12: id.p12, password: 'p12-secret' });
        expect(cert.status).toBe(201);
      });
      afterAll(async () => {
        await s?.close();
        if (!process.env.KEEP_SIGN_DIR) rmSync(dir, { recursive: true, force: true });
        else console.log(dir);
      });

      const fetchFile = async (url: string, name: string) => {
        const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
        const file = path.join(dir, name);
        writeFileSync(file, bytes);
        return { bytes, file };
      };
      const pageHeight = (file: string) =>
        Number(/Page size:\s+[\d.]+ x ([\d.]+)/.exec(execFileSync('pdfinfo', [file]).toString())![1]);
      const shot = (file: string, name: string) => {
        const page = String(sig.pdfMeta.page);
        const out = path.join(dir, name);
        execFileSync('pdftoppm', ['-r', '100', '-gray', '-f', page, '-l', page, '-singlefile', file, out]);
        return readFileSync(`${out}.pgm`);
      };

      it("flattened: signed in a new field on the form field's rectangle, showing signer, date and reason", async () => {
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [text.name]: 'Visible test' },
          options: { sign: true },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const { bytes, file } = await fetchFile(res.json.data.downloadUrl, `${db.name}-flat.pdf`);
        const report = pdfsig(file);
        expect(report).toContain('Signature Validation: Signature is Valid.');
        expect(report).toContain('Total document signed');
        expect(opensslVerify(dir, bytes, `${db.name}-flat`, id.crt).stderr).toContain('Verification successful');

        // the words are on the page, inside the field's rectangle (pdftotext -bbox: the words' boxes)
        const [x0, y0, x1, y1] = sig.pdfMeta.rect;
        const h = pageHeight(file);
        const words = execFileSync('pdftotext', [
          '-f',
          String(sig.pdfMeta.page),
          '-l',
          String(sig.pdfMeta.page),
          '-x',
          String(Math.floor(x0)),
          '-y',
          String(Math.floor(h - y1)),
          '-W',
          String(Math.ceil(x1 - x0)),
          '-H',
          String(Math.ceil(y1 - y0)),
          file,
          '-',
        ]).toString();
        expect(words).toContain('Digitally signed by visible signer');
        expect(words).toMatch(/Date: \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
        expect(words).toContain('Reason: Document issued by formcast');
        // drawn: ink in the field's box that the unsigned render does not have
        const plain = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [text.name]: 'Visible test' },
        });
        const { file: plainFile } = await fetchFile(plain.json.data.downloadUrl, `${db.name}-plain.pdf`);
        const signedInk = inkIn(shot(file, `${db.name}-flat`), h, sig.pdfMeta.rect, 100);
        const plainInk = inkIn(shot(plainFile, `${db.name}-plain`), h, sig.pdfMeta.rect, 100);
        expect(signedInk).toBeGreaterThan(plainInk + 20);
        // no interactive field of the form is left but the signature
        const widgets = bytes.toString('latin1').match(/\/FT\s*\/Sig/g) ?? [];
        expect(widgets).toHaveLength(1);
      });

      it("not flattened: the form's own signature field is the one signed", async () => {
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [text.name]: 'Kept open' },
          options: { sign: true, flatten: false },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const { bytes, file } = await fetchFile(res.json.data.downloadUrl, `${db.name}-open.pdf`);
        const report = pdfsig(file);
        expect(report).toContain('Signature Validation: Signature is Valid.');
        expect(opensslVerify(dir, bytes, `${db.name}-open`, id.crt).stderr).toContain('Verification successful');
        // one signature, in the field of the form's name (pdfsig lists its field name)
        expect(report.match(/Signature #\d+/g)).toHaveLength(1);
        expect(report).toContain(`Signature Field Name: ${sig.pdfMeta.originalName}`);
        const h = pageHeight(file);
        expect(inkIn(shot(file, `${db.name}-open`), h, sig.pdfMeta.rect, 100)).toBeGreaterThan(20);
      });

      /** The text pdftotext finds inside a rectangle of the page as displayed (top-left origin). */
      const textIn = (file: string, page: number, box: { x: number; y: number; w: number; h: number }) =>
        execFileSync('pdftotext', [
          '-f',
          String(page),
          '-l',
          String(page),
          '-x',
          String(Math.floor(box.x)),
          '-y',
          String(Math.floor(box.y)),
          '-W',
          String(Math.ceil(box.w)),
          '-H',
          String(Math.ceil(box.h)),
          file,
          '-',
        ]).toString();

      it("a signer's name in any script is drawn as written (Latin Extended, Cyrillic, CJK, Arabic)", async () => {
        for (const [i, name] of NAMES.entries()) {
          const who = makeIdentity(dir, `script${i}`, 30, 'rsa', name);
          const cert = await api(s, s.b).post('/v1/signing-certificates', { pkcs12: who.p12, password: 'p12-secret' });
          expect(cert.status, JSON.stringify(cert.json)).toBe(201);
          for (const flatten of [true, false]) {
            const res = await api(s, s.b).post('/v1/renders', {
              templateId: tpl,
              data: { [text.name]: 'Any script' },
              options: { sign: cert.json.data.id, flatten },
            });
            expect(res.status, JSON.stringify(res.json)).toBe(201);
            const { bytes, file } = await fetchFile(res.json.data.downloadUrl, `${db.name}-script${i}-${flatten}.pdf`);
            expect(pdfsig(file)).toContain('Signature Validation: Signature is Valid.');
            expect(opensslVerify(dir, bytes, `${db.name}-script${i}-${flatten}`, who.crt).stderr).toContain(
              'Verification successful',
            );
            const [x0, y0, x1, y1] = sig.pdfMeta.rect;
            const h = pageHeight(file);
            const inBox = textIn(file, sig.pdfMeta.page, { x: x0, y: h - y1, w: x1 - x0, h: y1 - y0 });
            // poppler marks a right-to-left run with embedding controls (U+202B ... U+202C), in logical order
            expect(inBox.replace(/[\u202a-\u202e]/g, '')).toContain(`Digitally signed by ${name}`);
            expect(inBox).not.toContain('?');
            // a second extractor that shares nothing with poppler
            const mu = execFileSync('mutool', ['draw', '-q', '-F', 'txt', file, String(sig.pdfMeta.page)]).toString();
            // mutool writes a right-to-left run in visual order, and U+FFFD for the glyph the shaper adds
            // to a letter (Noto Sans Arabic's dots of a final yeh) that stands for no character of its own
            const rtl = /[\u0590-\u08ff]/.test(name);
            const seen = rtl ? Array.from(name).reverse().join('') : name;
            expect(mu.replace(/\ufffd/g, '')).toContain(`Digitally signed by ${seen}`);
          }
        }
      });

      it('on a page turned 90°, 180° or 270° the signature reads upright as the page is shown', async () => {
        for (const rotate of [90, 180, 270]) {
          // a page turned as scanned landscape pages are, its signature field drawn where it reads across
          const doc = await PDFDocument.create();
          doc.addPage([612, 792]).setRotation(degrees(rotate));
          const rect: [number, number, number, number] = rotate === 180 ? [200, 100, 420, 160] : [100, 200, 160, 420];
          const turned = await editFields(Buffer.from(await doc.save()), [
            { op: 'add', field: { name: 'Approval', type: 'signature', page: 1, rect } },
            { op: 'add', field: { name: 'Note', type: 'text', page: 1, rect: [300, 500, 400, 520] } },
          ]);
          const up = await api(s, s.b).post('/v1/templates', uploadForm(Buffer.from(turned), `r${rotate}.pdf`));
          expect(up.status, JSON.stringify(up.json)).toBe(201);
          for (const flatten of [true, false]) {
            const res = await api(s, s.b).post('/v1/renders', {
              templateId: up.json.data.id,
              data: { Note: 'Turned' },
              options: { sign: true, flatten },
            });
            expect(res.status, JSON.stringify(res.json)).toBe(201);
            const { file } = await fetchFile(res.json.data.downloadUrl, `${db.name}-rot${rotate}-${flatten}.pdf`);
            expect(pdfsig(file)).toContain('Signature Validation: Signature is Valid.');
            // the field's rectangle as the page is displayed (turned clockwise by /Rotate)
            const [x0, y0, x1, y1] = rect;
            const info = execFileSync('pdfinfo', [file]).toString();
            const [pw, ph] = /Page size:\s+([\d.]+) x ([\d.]+)/.exec(info)!.slice(1, 3).map(Number);
            const shown = {
              90: { x: y0, y: x0, w: y1 - y0, h: x1 - x0 },
              180: { x: pw - x1, y: y0, w: x1 - x0, h: y1 - y0 },
              270: { x: ph - y1, y: pw - x1, w: y1 - y0, h: x1 - x0 },
            }[rotate]!;
            expect(textIn(file, 1, shown)).toContain('Digitally signed by visible signer');
            // upright: the words of the first line run left to right on one baseline, wider than tall
            const words = wordsOf(file, 1);
            const at = words.findIndex((w) => w.text === 'Digitally');
            expect(at).toBeGreaterThanOrEqual(0);
            const line = words.slice(at, at + 3);
            expect(line.map((w) => w.text)).toEqual(['Digitally', 'signed', 'by']);
            for (const w of line) expect(w.x1 - w.x0).toBeGreaterThan(w.y1 - w.y0);
            expect(line[1].x0).toBeGreaterThan(line[0].x1);
            expect(line[2].x0).toBeGreaterThan(line[1].x1);
            expect(Math.abs(line[1].y1 - line[0].y1)).toBeLessThan(1);
            const first = words[at];
            expect(first.x0).toBeGreaterThanOrEqual(shown.x - 1);
            expect(first.y0).toBeGreaterThanOrEqual(shown.y - 1);
            execFileSync('pdftoppm', [
              '-r',
              '60',
              '-png',
              '-singlefile',
              file,
              path.join(dir, `${db.name}-rot${rotate}-${flatten}`),
            ]);
          }
        }
      });

      it('a form without a signature field, or whose field the data filled: invisible', async () => {
        const other = await api(s, s.b).post('/v1/templates', uploadForm(pdf('pdfjs-required-fields.pdf'), 'r.pdf'));
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: other.json.data.id,
          data: {},
          options: { sign: true },
        });
        expect(res.status, JSON.stringify(res.json)).toBe(201);
        const { bytes, file } = await fetchFile(res.json.data.downloadUrl, `${db.name}-invisible.pdf`);
        expect(pdfsig(file)).toContain('Signature is Valid.');
        expect(bytes.toString('latin1')).toMatch(/\/Rect\s*\[\s*0\s+0\s+0\s+0\s*\]/);
        expect(execFileSync('pdftotext', [file, '-']).toString()).not.toContain('Digitally signed');

        const typed = await api(s, s.b).post('/v1/renders', {
          templateId: tpl,
          data: { [sig.name]: 'Jane Typed' },
          options: { sign: true },
        });
        expect(typed.status, JSON.stringify(typed.json)).toBe(201);
        const t = await fetchFile(typed.json.data.downloadUrl, `${db.name}-typed.pdf`);
        expect(pdfsig(t.file)).toContain('Signature is Valid.');
        const words = execFileSync('pdftotext', [t.file, '-']).toString();
        expect(words).toContain('Jane Typed');
        expect(words).not.toContain('Digitally signed');
      });
    },
  );
}
