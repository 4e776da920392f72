// Button values over HTTP on the forms of the button defect classes (issue 22; built by
// test/helpers/button-forms.ts): every option the schema lists is accepted, in strict mode too, and
// the downloaded PDF shows it to MuPDF (state names as written) and poppler (the mark).
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkboxWithoutBBox, orphanTrueTypeCheckbox, radioGroup, type BuiltForm } from '../helpers/button-forms.js';
import { inkIn, renderGray } from '../helpers/ink.js';
import { hasTool } from '../helpers/pdf-tools.js';
import { DATABASES, api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const tools = hasTool('mutool') && hasTool('pdftoppm');
/** Dark pixels inside a 30 pt button (frame left out) that make a mark. */
const MARK = 20;

describe.each(DATABASES.filter((d) => d.enabled))('button values over HTTP ($label)', ({ name: db }) => {
  let s: TestServer;
  let out: string;
  let n = 0;
  beforeAll(async () => {
    s = await startServer(db);
    out = mkdtempSync(path.join(tmpdir(), 'buttons-'));
  });
  afterAll(async () => s?.close());

  const upload = async (form: BuiltForm) => {
    const res = await api(s, s.b).post('/v1/templates', uploadForm(form.bytes, form.name));
    expect(res.status).toBe(201);
    const id = res.json.data.id as string;
    const fields = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields;
    return { id, field: fields[0] as { name: string; type: string; options?: string[] } };
  };
  const render = (templateId: string, data: Record<string, unknown>, flatten = false) =>
    api(s, s.b).post('/v1/renders', { templateId, data, options: { flatten, strict: true } });
  const download = async (url: string) => {
    const file = path.join(out, `${n++}.pdf`);
    writeFileSync(file, Buffer.from(await (await fetch(url)).arrayBuffer()));
    return file;
  };
  /** Every object of the file on one line, as MuPDF writes them (names in canonical #xx escapes). */
  const objects = async (file: string) => (await run('mutool', ['show', file, 'grep'])).stdout;

  it.skipIf(!tools)(
    'sets every listed option of radio states with PDFDocEncoding bytes or "#" in their text, in strict mode',
    async () => {
      const cases: [BuiltForm, string[], string[]][] = [
        [
          await radioGroup('pdfdoc.pdf', ['Other#20choice', 'Patient#90s#20choice']),
          ['Other choice', 'Patient\u2019s choice'],
          ['/Other#20choice', '/Patient#90s#20choice'],
        ],
        [
          await radioGroup('hash.pdf', ['#23d8#23a3', '#23D8#23A3']),
          ['#d8#a3', '#D8#A3'],
          ['/#23d8#23a3', '/#23D8#23A3'],
        ],
      ];
      for (const [form, listed, tokens] of cases) {
        const { id, field } = await upload(form);
        expect(field.options).toEqual(listed);
        for (const [i, option] of listed.entries()) {
          const res = await render(id, { [field.name]: option });
          expect(res.status, JSON.stringify(res.json)).toBe(201);
          expect(res.json.data.warnings).toEqual([]);
          expect(await objects(await download(res.json.data.downloadUrl))).toMatch(new RegExp(`/V${tokens[i]}[/>]`));
        }
      }
    },
  );

  it.skipIf(!tools)(
    'selects each radio button sharing an export value, by its listed option or its state name',
    async () => {
      const form = await radioGroup('shared.pdf', ['0', '1'], ['Sì', 'Sì']);
      const { id, field } = await upload(form);
      expect(field.options).toEqual(['Sì', 'Sì (2)']);
      for (const [value, on] of [
        ['Sì', 0],
        ['Sì (2)', 1],
        ['0', 0],
        ['1', 1],
      ] as const) {
        const res = await render(id, { [field.name]: value }, true);
        expect(res.status, `${value}: ${JSON.stringify(res.json)}`).toBe(201);
        expect(res.json.data.warnings).toEqual([]);
        const img = await renderGray(await download(res.json.data.downloadUrl), 1, 'poppler');
        const ink = form.rects.map((r) => inkIn(img, r, 4));
        expect(ink[on], value).toBeGreaterThan(MARK);
        expect(ink[1 - on], value).toBeLessThan(MARK);
      }
      const wrong = await render(id, { [field.name]: 'Si' });
      expect(wrong.status).toBe(422);
      expect(wrong.json.error.details).toMatchObject({ field: field.name, received: '"Si"' });
    },
  );

  it.skipIf(!tools)(
    'shows a checked box in poppler, interactive and flattened, when its states are held by reference or its tick has no /BBox',
    async () => {
      for (const form of [await orphanTrueTypeCheckbox(), await checkboxWithoutBBox()]) {
        const { id, field } = await upload(form);
        expect(field.type).toBe('checkbox');
        for (const flatten of [false, true]) {
          const res = await render(id, { [field.name]: true }, flatten);
          expect(res.status).toBe(201);
          const img = await renderGray(await download(res.json.data.downloadUrl), 1, 'poppler');
          expect(inkIn(img, form.rects[0], 4), `${form.name} ${flatten ? 'flattened' : 'interactive'}`).toBeGreaterThan(
            MARK,
          );
        }
      }
    },
  );

  if (!tools) it.skip('checks outputs with mutool and pdftoppm (skipped: not installed)', () => {});
});
