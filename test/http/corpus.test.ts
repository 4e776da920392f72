import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir, loadManifest, type ManifestFile } from '../helpers/corpus.js';
import { hasTool, pdftkFields, qpdfCheck } from '../helpers/pdf-tools.js';

// The whole product path a new user takes, on every corpus form: upload over HTTP, read the schema,
// compare it with the manifest, post data built from the schema alone, download, and check the PDF
// with independent tools.

const corpus = corpusDir();
const tools = hasTool('pdftk') && hasTool('qpdf');
const files = corpus ? loadManifest().files : [];
const KIND_TYPES: Record<string, string[]> = {
  text: ['text', 'date', 'number'],
  checkbox: ['checkbox'],
  radio: ['radio'],
  combo: ['dropdown'],
  listbox: ['dropdown'],
  signature: ['signature'],
};

interface SchemaField {
  name: string;
  type: string;
  required: boolean;
  maxLength?: number;
  options?: string[];
  pdfMeta: { originalName: string; page: number; readOnly?: boolean };
}

function dataFor(fields: SchemaField[]): { data: Record<string, unknown>; expected: Map<string, string> } {
  const data: Record<string, unknown> = {};
  const expected = new Map<string, string>();
  fields.forEach((f, i) => {
    if (f.pdfMeta.readOnly) return;
    if (f.type === 'text') {
      const text = (i % 2 ? 'Zoë Łódź Привет' : 'Dupont 42').slice(0, f.maxLength ?? 100);
      data[f.name] = text;
      expected.set(f.pdfMeta.originalName, text);
    } else if (f.type === 'checkbox') data[f.name] = f.options && f.options.length > 1 ? f.options[0] : true;
    else if (f.type === 'dropdown' && f.options?.length) {
      data[f.name] = f.options[0];
      expected.set(f.pdfMeta.originalName, f.options[0]);
    } else if (f.type === 'radio' && f.options?.length) data[f.name] = f.options[0];
    else if (f.type === 'number') data[f.name] = 42;
    else if (f.type === 'date') data[f.name] = '2024-03-05';
  });
  return { data, expected };
}

describe.skipIf(!corpus)('every corpus form through the HTTP API (SQLite + folder)', () => {
  let s: TestServer;
  let out: string;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'plans-'));
    writeFileSync(
      path.join(dir, 'plans.json'),
      JSON.stringify({ Business: { templates: 10_000, rendersPerMonth: 100_000, requestsPerMinute: 100_000 } }),
    );
    s = await startServer('sqlite', {
      env: { PLANS_FILE: path.join(dir, 'plans.json'), RENDER_WORKERS: '2' },
      planA: 'Business',
    });
    out = mkdtempSync(path.join(tmpdir(), 'corpus-out-'));
  });
  afterAll(async () => s?.close());

  it.each(files.map((f) => [path.basename(f.file), f] as [string, ManifestFile]))('%s', async (name, entry) => {
    const up = await api(s, s.a).post('/v1/templates', uploadForm(readFileSync(path.join(corpus!, entry.file)), name));
    if (!entry.validAcroForm) {
      expect(up.status).toBe(422);
      expect(up.json.error.code).toBe('INVALID_PDF');
      return;
    }
    expect(up.status, JSON.stringify(up.json)).toBe(201);
    const schema = (await api(s, s.a).get(`/v1/templates/${up.json.data.id}/schema`)).json.data.schema as {
      fields: SchemaField[];
      pageCount: number;
    };
    expect(schema.pageCount).toBe(entry.pageCount);
    const fillable = entry.fields.filter((f) => f.kind !== 'pushbutton');
    expect(schema.fields.length).toBe(fillable.length);
    expect(up.json.data.fieldCount).toBe(fillable.length);
    const byName = new Map(schema.fields.map((f) => [f.pdfMeta.originalName, f]));
    for (const m of fillable) {
      const f = byName.get(m.fullName);
      expect(f, m.fullName).toBeDefined();
      expect(KIND_TYPES[m.kind], m.fullName).toContain(f!.type);
      expect(f!.required, m.fullName).toBe(Boolean(m.flags.required));
      expect(f!.pdfMeta.page, m.fullName).toBe(m.page);
      if (m.kind === 'text') expect(f!.maxLength, m.fullName).toBe(m.maxLen ?? undefined);
      if (m.kind === 'combo' || m.kind === 'listbox') expect(f!.options, m.fullName).toEqual(m.options);
      expect(Boolean(f!.pdfMeta.readOnly), m.fullName).toBe(Boolean(m.flags.readOnly));
    }

    const { data, expected } = dataFor(schema.fields);
    const unflat = await api(s, s.a).post('/v1/renders', {
      templateId: up.json.data.id,
      data,
      options: { flatten: false, locale: 'en-US', timezone: 'UTC' },
    });
    expect(unflat.status, JSON.stringify(unflat.json)).toBe(201);
    const flat = await api(s, s.a).post('/v1/renders', {
      templateId: up.json.data.id,
      data,
      options: { locale: 'en-US', timezone: 'UTC' },
    });
    expect(flat.status).toBe(201);
    if (!tools) return;

    const unflatPath = path.join(out, `${name}-unflat.pdf`);
    const flatPath = path.join(out, `${name}-flat.pdf`);
    writeFileSync(unflatPath, Buffer.from(await (await fetch(unflat.json.data.downloadUrl)).arrayBuffer()));
    writeFileSync(flatPath, Buffer.from(await (await fetch(flat.json.data.downloadUrl)).arrayBuffer()));
    const values = new Map((await pdftkFields(unflatPath)).map((f) => [f.name, f.values.at(-1) ?? '']));
    // Warnings name fields by their schema name: map those back to the PDF names pdftk shows.
    const schemaName = new Map(schema.fields.map((f) => [f.name, f.pdfMeta.originalName]));
    const quoted =
      unflat.json.data.warnings
        .join('\n')
        .match(/"[^"]+"/g)
        ?.map((q: string) => q.slice(1, -1)) ?? [];
    const cut = new Set(quoted.map((q: string) => schemaName.get(q) ?? q));
    for (const [originalName, value] of expected) {
      if (cut.has(originalName) || !values.has(originalName)) continue; // cut or hidden values carry a warning
      expect(values.get(originalName), originalName).toBe(value);
    }
    expect((await qpdfCheck(flatPath)).code, 'qpdf --check of the flattened render').not.toBe(2);
    expect(await pdftkFields(flatPath)).toHaveLength(0);
  });

  if (!tools) it.skip('checks rendered PDFs with pdftk and qpdf (skipped: pdftk or qpdf not installed)', () => {});
});
