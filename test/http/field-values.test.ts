import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftkFields } from '../helpers/pdf-tools.js';
import { makePng } from '../helpers/png.js';

// Values of each type as a user sends them over HTTP, checked in the downloaded PDF with independent tools.

const corpus = corpusDir();
const tools = hasTool('pdftk') && hasTool('pdfimages');
const run = promisify(execFile);

describe.skipIf(!corpus)('field values over HTTP (SQLite + folder)', () => {
  let s: TestServer;
  let out: string;
  const schemaOf = async (id: string) =>
    (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields as {
      name: string;
      type: string;
      options?: string[];
      pdfMeta: { originalName: string };
    }[];
  const upload = async (name: string) =>
    (await api(s, s.b).post('/v1/templates', uploadForm(readFileSync(path.join(corpus!, 'pdfs', name)), name))).json
      .data.id as string;
  const download = async (url: string, name: string) => {
    const file = path.join(out, name);
    writeFileSync(file, Buffer.from(await (await fetch(url)).arrayBuffer()));
    return file;
  };

  beforeAll(async () => {
    s = await startServer('sqlite');
    out = mkdtempSync(path.join(tmpdir(), 'values-'));
  });
  afterAll(async () => s?.close());

  it.skipIf(!tools)("writes dates in the field's AFDate format, converted to the time zone", async () => {
    const id = await upload('pdflib-sample-form.pdf');
    const birth = (await schemaOf(id)).find((f) => f.pdfMeta.originalName === 'Birthdate')!;
    expect(birth.type).toBe('date');
    const iso = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { [birth.name]: '1990-12-31T23:30:00Z' },
      options: { flatten: false, timezone: 'Europe/Paris' },
    });
    expect(iso.status).toBe(201);
    const fields = await pdftkFields(await download(iso.json.data.downloadUrl, 'date.pdf'));
    expect(fields.find((f) => f.name === 'Birthdate')!.values.at(-1)).toBe('01/01/1991');
    const local = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { [birth.name]: '31/12/1990' },
      options: { flatten: false, locale: 'fr-FR' },
    });
    expect(
      (await pdftkFields(await download(local.json.data.downloadUrl, 'date2.pdf')))
        .find((f) => f.name === 'Birthdate')!
        .values.at(-1),
    ).toBe('12/31/1990');
    const bad = await api(s, s.b).post('/v1/renders', { templateId: id, data: { [birth.name]: '1990-02-30' } });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.field).toBe(birth.name);
  });

  it.skipIf(!tools)(
    'applies AFSpecial formats to phone and SSN fields, and selects radios by option value',
    async () => {
      const id = await upload('pdflib-sample-form.pdf');
      const fields = await schemaOf(id);
      const by = (n: string) => fields.find((f) => f.pdfMeta.originalName === n)!;
      const sex = by('Sex');
      const res = await api(s, s.b).post('/v1/renders', {
        templateId: id,
        data: {
          [by('SSN').name]: '123456789',
          [by('Telephone_Home').name]: '5551234567',
          [sex.name]: sex.options!.at(-1),
        },
        options: { flatten: false },
      });
      expect(res.status).toBe(201);
      const dumped = await pdftkFields(await download(res.json.data.downloadUrl, 'special.pdf'));
      expect(dumped.find((f) => f.name === 'SSN')!.values.at(-1)).toBe('123-45-6789');
      expect(dumped.find((f) => f.name === 'Telephone_Home')!.values.at(-1)).toBe('(555) 123-4567');
      expect(dumped.find((f) => f.name === 'Sex')!.values.at(-1)).toBe(sex.options!.at(-1));
      const wrong = await api(s, s.b).post('/v1/renders', { templateId: id, data: { [sex.name]: 'nope' } });
      expect(wrong.status).toBe(422);
      expect(wrong.json.error.details.field).toBe(sex.name);
    },
  );

  it.skipIf(!tools)('draws a PNG signature given as a data URL inside the signature widget', async () => {
    const id = await upload('pdflib-sample-form.pdf');
    const sig = (await schemaOf(id)).find((f) => f.type === 'signature')!;
    const res = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { [sig.name]: `data:image/png;base64,${Buffer.from(makePng(2, 1)).toString('base64')}` },
    });
    expect(res.status).toBe(201);
    const file = await download(res.json.data.downloadUrl, 'sig.pdf');
    const { stdout } = await run('pdfimages', ['-list', file]);
    expect(stdout.split('\n').filter((l) => /^\s*\d+\s+\d+\s+image/.test(l)).length).toBeGreaterThanOrEqual(1);
    const gif = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { [sig.name]: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' },
    });
    expect(gif.status).toBe(422);
  });

  it.skipIf(!tools)('formats numbers by the field format or the locale', async () => {
    const id = await upload('luxembourg-certificat-salaire-160-2019.pdf');
    const num = (await schemaOf(id)).find((f) => f.type === 'number');
    if (!num) return;
    const res = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { [num.name]: 1234.5 },
      options: { flatten: false },
    });
    expect(res.status).toBe(201);
    const value = (await pdftkFields(await download(res.json.data.downloadUrl, 'num.pdf')))
      .find((f) => f.name === num.pdfMeta.originalName)!
      .values.at(-1)!;
    expect(value.replace(/\s|\u00a0/g, '')).toMatch(/^1[.,']?234[.,]50?/);
    const str = await api(s, s.b).post('/v1/renders', { templateId: id, data: { [num.name]: '1234' } });
    expect(str.status).toBe(422);
    expect(str.json.error.details).toMatchObject({ field: num.name, received: 'string' });
  });

  it.skipIf(!tools)('turns on the named state of a checkbox with several on-states', async () => {
    const id = await upload('irs-f1040-2010-prefilled.pdf');
    const status = (await schemaOf(id)).find((f) => f.pdfMeta.originalName === 'topmostSubform[0].Page1[0].c1_04')!;
    expect(status.type).toBe('checkbox');
    expect(status.options).toEqual(['S', 'MJ', 'MS', 'HoH', 'QW']);
    const res = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { [status.name]: 'MJ' },
      options: { flatten: false },
    });
    expect(res.status).toBe(201);
    const dumped = await pdftkFields(await download(res.json.data.downloadUrl, 'status.pdf'));
    expect(dumped.find((f) => f.name === status.pdfMeta.originalName)!.values.at(-1)).toBe('MJ');
    const wrong = await api(s, s.b).post('/v1/renders', { templateId: id, data: { [status.name]: 'Married' } });
    expect(wrong.status).toBe(422);
  });

  it.skipIf(!tools)(
    'answers VALIDATION_ERROR for true on a Yes/No pair built as one checkbox, and fills the named state',
    async () => {
      const id = await upload('uscourts-b107-financial-affairs.pdf');
      const pair = (await schemaOf(id)).find((f) => f.type === 'checkbox' && (f.options?.length ?? 0) > 1)!;
      expect(pair.options).toEqual(expect.arrayContaining(['yes', 'no']));
      for (const strict of [false, true]) {
        const res = await api(s, s.b).post('/v1/renders', {
          templateId: id,
          data: { [pair.name]: true },
          options: { strict },
        });
        expect(res.status).toBe(422);
        expect(res.json.error.code).toBe('VALIDATION_ERROR');
        expect(res.json.error.details).toMatchObject({ field: pair.name, received: 'true' });
        for (const state of pair.options!) expect(res.json.error.details.expected).toContain(`"${state}"`);
      }
      const res = await api(s, s.b).post('/v1/renders', {
        templateId: id,
        data: { [pair.name]: 'no' },
        options: { flatten: false },
      });
      expect(res.status).toBe(201);
      const dumped = await pdftkFields(await download(res.json.data.downloadUrl, 'pair.pdf'));
      expect(dumped.find((f) => f.name === pair.pdfMeta.originalName)!.values.at(-1)).toBe('no');
    },
  );

  if (!tools)
    it.skip('checks values with pdftk and pdfimages (skipped: poppler-utils or pdftk not installed)', () => {});
});
