import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftkFields } from '../helpers/pdf-tools.js';

// A render's locale and time zone: the request's options, else the template's (PATCH locale / timezone),
// else the operator's DEFAULT_LOCALE / DEFAULT_TIMEZONE (fr-FR / Europe/Paris unless set). The date
// "31/12/1990" is a short date in fr-FR and no date at all in en-US: which locale applied shows in the answer.

const corpus = corpusDir();
const FRENCH_DATE = '31/12/1990';

for (const db of DATABASES) {
  describe.skipIf(!corpus || !db.enabled)(`render locale defaults [${db.label}]`, () => {
    let s: TestServer;
    let id: string;
    let birth: string;
    beforeAll(async () => {
      s = await startServer(db.name);
      const bytes = readFileSync(path.join(corpus!, 'pdfs', 'pdflib-sample-form.pdf'));
      id = (await api(s, s.b).post('/v1/templates', uploadForm(bytes, 'sample.pdf'))).json.data.id;
      const fields = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields;
      birth = fields.find((f: { pdfMeta: { originalName: string } }) => f.pdfMeta.originalName === 'Birthdate').name;
    });
    afterAll(async () => s?.close());

    const render = (options?: object) =>
      api(s, s.b).post('/v1/renders', { templateId: id, data: { [birth]: FRENCH_DATE }, options });

    it('uses fr-FR by default, the template locale once set, and the request options over both', async () => {
      expect((await render()).status).toBe(201);
      const set = await api(s, s.b).patch(`/v1/templates/${id}`, { locale: 'en-US', timezone: 'America/New_York' });
      expect(set.status).toBe(200);
      expect(set.json.data).toMatchObject({ locale: 'en-US', timezone: 'America/New_York', version: 1 });
      expect((await api(s, s.b).get(`/v1/templates/${id}`)).json.data.locale).toBe('en-US');
      expect((await api(s, s.b).get('/v1/templates')).json.data[0]).toMatchObject({ locale: 'en-US' });
      const refused = await render();
      expect(refused.status).toBe(422);
      expect(refused.json.error.details.field).toBe(birth);
      expect((await render({ locale: 'fr-FR' })).status).toBe(201);
      // the preview follows the same rule
      const preview = await api(s, s.b).post(`/v1/templates/${id}/preview`, { data: { [birth]: FRENCH_DATE } });
      expect(preview.status).toBe(422);
      const cleared = await api(s, s.b).patch(`/v1/templates/${id}`, { locale: null, timezone: null });
      expect(cleared.status, JSON.stringify(cleared.json)).toBe(200);
      expect(cleared.json.data).toMatchObject({ locale: null, timezone: null });
      expect((await render()).status).toBe(201);
    });

    it('refuses an unknown locale or time zone on the template', async () => {
      for (const [body, field] of [
        [{ locale: 'xx-!!' }, 'locale'],
        [{ timezone: 'Mars/Olympus' }, 'timezone'],
      ] as const) {
        const res = await api(s, s.b).patch(`/v1/templates/${id}`, body);
        expect(res.status).toBe(422);
        expect(res.json.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
      }
    });
  });
}

describe.skipIf(!corpus)('the operator default (DEFAULT_LOCALE, DEFAULT_TIMEZONE)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite', { env: { DEFAULT_LOCALE: 'en-US', DEFAULT_TIMEZONE: 'America/New_York' } });
  });
  afterAll(async () => s?.close());

  it.skipIf(!hasTool('pdftk'))('applies to renders whose request and template give none', async () => {
    const bytes = readFileSync(path.join(corpus!, 'pdfs', 'pdflib-sample-form.pdf'));
    const id = (await api(s, s.b).post('/v1/templates', uploadForm(bytes, 'sample.pdf'))).json.data.id;
    const fields = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields;
    const birth = fields.find(
      (f: { pdfMeta: { originalName: string } }) => f.pdfMeta.originalName === 'Birthdate',
    ).name;
    const french = await api(s, s.b).post('/v1/renders', { templateId: id, data: { [birth]: FRENCH_DATE } });
    expect(french.status).toBe(422);
    // 23:30 UTC on Dec 31st is still Dec 31st in New York (it is Jan 1st in Paris)
    const iso = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { [birth]: '1990-12-31T23:30:00Z' },
      options: { flatten: false },
    });
    expect(iso.status).toBe(201);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'locale-')), 'out.pdf');
    writeFileSync(file, Buffer.from(await (await fetch(iso.json.data.downloadUrl)).arrayBuffer()));
    expect((await pdftkFields(file)).find((f) => f.name === 'Birthdate')!.values.at(-1)).toBe('12/31/1990');
  });
});
