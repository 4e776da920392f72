// Computed forms over HTTP, the analysis/schema/API side (issue 23): the schema and JSON Schema mark the
// fields the form computes; data for them is ignored with a warning, refused in strict mode (nothing
// charged) and accepted with options.calculate false, read-only ones included; values the form's own checks
// refuse become warnings or a strict VALIDATION_ERROR; the CLI's --no-calculate. On a form built here and on
// the corpus's Luxembourg salary certificate. Nothing here depends on the script runtime computing a value:
// a computed field is checked to not hold what the caller sent (whatever the form made of it).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PDFDict, PDFDocument, PDFHexString, PDFName } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessEngine } from '../../src/adapters/engine/in-process-engine.js';
import type { RenderEngine } from '../../src/ports/render-engine.js';
import { corpusDir, repoRoot } from '../helpers/corpus.js';
import { DATABASES, api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const LUXEMBOURG = 'luxembourg-certificat-salaire-160-2019.pdf';

/**
 * Two inputs a and b (AFNumber, 2 decimals), `sum` = AFSimple_Calculate SUM of them (not read-only), `total`
 * read-only with a custom calculate script, `note` whose format script sends mail (unsupported), and a
 * calculation order that lists total before sum.
 */
async function computedForm(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([400, 220]);
  const form = doc.getForm();
  const ctx = doc.context;
  const js = (text: string) => ctx.obj({ S: 'JavaScript', JS: PDFHexString.fromText(text) });
  const number = 'AFNumber_Format(2, 0, 0, 0, "", false);';
  const specs: [string, Record<string, string>, boolean][] = [
    ['a', { F: number }, false],
    ['b', { F: number }, false],
    ['sum', { C: 'AFSimple_Calculate("SUM", new Array("a", "b"));', F: number }, false],
    ['total', { C: 'event.value = this.getField("sum").value * 2;', F: number }, true],
    ['note', { F: 'this.mailDoc(true);' }, false],
  ];
  const refs = specs.map(([name, actions, readOnly], i) => {
    const f = form.createTextField(name);
    f.addToPage(page, { x: 10, y: 10 + i * 40, width: 200, height: 24 });
    if (readOnly) f.enableReadOnly();
    const aa = ctx.obj({}) as PDFDict;
    for (const [key, text] of Object.entries(actions)) aa.set(PDFName.of(key), js(text));
    f.acroField.dict.set(PDFName.of('AA'), aa);
    return f.acroField.ref;
  });
  doc.catalog.lookup(PDFName.of('AcroForm'), PDFDict).set(PDFName.of('CO'), ctx.obj([refs[3], refs[2]]));
  return doc.save({ useObjectStreams: false });
}

/** The text a field of an unflattened output holds (/V). */
async function valueIn(url: string, field: string): Promise<string | undefined> {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  return doc.getForm().getTextField(field).getText();
}

describe.each(DATABASES.filter((d) => d.enabled))('computed fields over HTTP ($label)', ({ name: db }) => {
  let s: TestServer;
  let id: string;
  let keys: Record<string, string>;
  beforeAll(async () => {
    s = await startServer(db);
    const res = await api(s, s.b).post('/v1/templates', uploadForm(await computedForm(), 'computed.pdf'));
    expect(res.status).toBe(201);
    id = res.json.data.id;
    const fields = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields as {
      name: string;
      pdfMeta: { originalName: string };
    }[];
    keys = Object.fromEntries(fields.map((f) => [f.pdfMeta.originalName, f.name]));
  });
  afterAll(async () => s?.close());

  const render = (data: Record<string, unknown>, options: Record<string, unknown> = {}) =>
    api(s, s.b).post('/v1/renders', { templateId: id, data, options: { flatten: false, ...options } });
  const used = async () => (await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used as number;

  it('the schema marks computed fields with their calculation, script kinds, unsupported scripts and the order', async () => {
    const res = await api(s, s.b).get(`/v1/templates/${id}/schema`);
    expect(res.status).toBe(200);
    const { fields, scripts } = res.json.data.schema;
    const field = (n: string) =>
      fields.find((f: { pdfMeta: { originalName: string } }) => f.pdfMeta.originalName === n);
    expect(field('sum')).toMatchObject({
      computed: true,
      calculation: { kind: 'sum', reads: [keys.a, keys.b] },
      scripts: { format: 'AFNumber' },
    });
    expect(field('total')).toMatchObject({
      computed: true,
      calculation: { kind: 'custom' },
      pdfMeta: { readOnly: true },
    });
    expect(field('a').computed).toBeUndefined();
    expect(field('a').scripts).toEqual({ format: 'AFNumber' });
    expect(field('note').unsupportedScripts).toEqual([{ action: 'format', api: 'mail', reason: 'sends e-mail' }]);
    expect(scripts).toEqual({ calculationOrder: [keys.total, keys.sum], document: [] });
  });

  it('the JSON Schema lists computed fields as readOnly and refused, saying how they are computed', async () => {
    const res = await api(s, s.b).get(`/v1/templates/${id}/json-schema`);
    expect(res.status).toBe(200);
    const { properties } = res.json.data.schema;
    expect(properties[keys.sum]).toMatchObject({ readOnly: true, not: {} });
    expect(properties[keys.sum].description).toContain(`Computed by the form (the sum of ${keys.a}, ${keys.b})`);
    expect(properties[keys.sum].description).toContain('options.calculate is false');
    // read-only and computed: listed too (a read-only field the form does not compute stays out)
    expect(properties[keys.total]).toMatchObject({ readOnly: true, not: {} });
    expect(properties[keys.a].readOnly).toBeUndefined();
  });

  it('ignores data for computed fields with a COMPUTED_FIELD_IGNORED warning: the caller never sets them', async () => {
    const res = await render({ [keys.a]: 1, [keys.b]: 2, [keys.sum]: 999, [keys.total]: 5000 });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    const warnings = res.json.data.warnings as string[];
    expect(warnings.filter((w) => w.startsWith('COMPUTED_FIELD_IGNORED:'))).toEqual([
      `COMPUTED_FIELD_IGNORED: Field "${keys.sum}" is computed by the form; its value was ignored`,
      `COMPUTED_FIELD_IGNORED: Field "${keys.total}" is computed by the form; its value was ignored`,
    ]);
    const url = res.json.data.downloadUrl;
    expect(await valueIn(url, 'a')).toBe('1.00');
    // what the form computes (or blank without a runtime), never what the caller sent
    expect(await valueIn(url, 'sum')).not.toBe('999.00');
    expect(await valueIn(url, 'total')).not.toBe('5,000.00');
  });

  it('strict mode refuses data for computed fields, naming each in details.errors, and charges nothing', async () => {
    const before = await used();
    const res = await render({ [keys.a]: 1, [keys.sum]: 999, [keys.total]: 5 }, { strict: true });
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('VALIDATION_ERROR');
    expect(res.json.error.message).toContain(`Field "${keys.sum}" is computed by the form`);
    expect(res.json.error.details).toMatchObject({
      field: keys.sum,
      expected: 'no value (the form computes the field)',
    });
    expect(res.json.error.details.errors.map((e: { field: string }) => e.field)).toEqual([keys.sum, keys.total]);
    expect(await used()).toBe(before);
    // without them, strict mode renders
    const ok = await render({ [keys.a]: 1, [keys.b]: 2 }, { strict: true });
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
  });

  it('options.calculate false accepts values for computed fields, read-only ones included, in strict mode too', async () => {
    const res = await render(
      { [keys.a]: 1, [keys.b]: 2, [keys.sum]: 999, [keys.total]: 5000 },
      { calculate: false, strict: true },
    );
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    expect(res.json.data.warnings).toEqual([]);
    const url = res.json.data.downloadUrl;
    expect(await valueIn(url, 'sum')).toBe('999.00');
    expect(await valueIn(url, 'total')).toBe('5,000.00');
  });

  it('previews, async renders and batch items follow the same rules', async () => {
    const preview = (options: Record<string, unknown>) =>
      api(s, s.b).post(`/v1/templates/${id}/preview`, { data: { [keys.sum]: 3 }, options });
    expect((await preview({ strict: true })).status).toBe(422);
    const accepted = await preview({ strict: true, calculate: false });
    expect(accepted.status).toBe(200);

    const before = await used();
    const asyncStrict = await render({ [keys.sum]: 3 }, { strict: true, async: true });
    expect(asyncStrict.status).toBe(422);
    const batch = await api(s, s.b).post('/v1/renders/batch', {
      items: [
        { templateId: id, data: { [keys.a]: 1 }, options: { strict: true } },
        { templateId: id, data: { [keys.sum]: 3 }, options: { strict: true } },
      ],
    });
    expect(batch.status).toBe(422);
    expect(batch.json.error.details).toMatchObject({ field: `items[1].data.${keys.sum}`, index: '1' });
    expect(await used()).toBe(before);
    const batchOk = await api(s, s.b).post('/v1/renders/batch', {
      items: [{ templateId: id, data: { [keys.sum]: 3 }, options: { strict: true, calculate: false } }],
    });
    expect(batchOk.status, JSON.stringify(batchOk.json)).toBe(202);
  });

  it.skipIf(!corpusDir())(
    'the Luxembourg certificate: its read-only totals are ignored while the form computes them, filled with calculate false',
    async () => {
      const bytes = readFileSync(path.join(corpusDir()!, 'pdfs', LUXEMBOURG));
      const up = await api(s, s.b).post('/v1/templates', uploadForm(bytes, LUXEMBOURG));
      expect(up.status).toBe(201);
      const lux = up.json.data.id;
      const schema = (await api(s, s.b).get(`/v1/templates/${lux}/schema`)).json.data.schema;
      const key = (n: string) =>
        schema.fields.find((f: { pdfMeta: { originalName: string } }) => f.pdfMeta.originalName === n).name as string;
      const totrem = schema.fields.find((f: { name: string }) => f.name === key('T.TOTREM'));
      expect(totrem).toMatchObject({
        type: 'number',
        computed: true,
        calculation: { kind: 'sum', reads: ['N.REM1', 'N.REM2', 'N.REM3', 'N.REM4'].map(key) },
        pdfMeta: { readOnly: true },
      });
      expect(schema.scripts.calculationOrder[0]).toBe(key('T.TOTREM'));

      const data = { [key('N.REM1')]: 1000.5, [key('N.REM2')]: 234, [key('T.TOTREM')]: 99 };
      const renderLux = (options: Record<string, unknown>) =>
        api(s, s.b).post('/v1/renders', { templateId: lux, data, options: { flatten: false, ...options } });
      const ignored = await renderLux({});
      expect(ignored.status).toBe(201);
      expect(ignored.json.data.warnings).toContain(
        `COMPUTED_FIELD_IGNORED: Field "${key('T.TOTREM')}" is computed by the form; its value was ignored`,
      );
      expect(await valueIn(ignored.json.data.downloadUrl, 'T.TOTREM')).not.toBe('99,00');
      // the form's own AFSimple_Calculate ran in the render worker's sandbox: 1000.5 + 234
      expect(await valueIn(ignored.json.data.downloadUrl, 'T.TOTREM')).toBe('1234.5');
      expect((await renderLux({ strict: true })).status).toBe(422);
      // the caller computes: the read-only total takes the value, in the form's own format
      const own = await renderLux({ calculate: false });
      expect(own.status, JSON.stringify(own.json)).toBe(201);
      expect(own.json.data.warnings.join('\n')).not.toContain('T.TOTREM');
      expect(await valueIn(own.json.data.downloadUrl, 'T.TOTREM')).toBe('99,00');
    },
  );
});

/**
 * The real in-process engine, whose answers also report one value as refused by the form's own check,
 * as the script runtime reports `event.rc = false`: only how the API maps that report is under test here.
 */
function refusingEngine(engine: RenderEngine): RenderEngine {
  return {
    ...engine,
    fill: async (...args) => ({
      ...(await engine.fill(...args)),
      scriptRejections: [{ field: 'a', value: '150', message: 'The value must be at most 100' }],
    }),
  };
}

describe.each(DATABASES.filter((d) => d.enabled))("values the form's checks refuse ($label)", ({ name: db }) => {
  let s: TestServer;
  let id: string;
  beforeAll(async () => {
    s = await startServer(db, {
      overrides: {
        engine: refusingEngine(
          inProcessEngine({ maxPages: 100, maxFields: 500 }, { templateEntries: 4, templateMb: 16 }),
        ),
      },
      env: { JOB_POLL_MS: '100' },
    });
    const res = await api(s, s.b).post('/v1/templates', uploadForm(await computedForm(), 'computed.pdf'));
    id = res.json.data.id;
  });
  afterAll(async () => s?.close());
  const used = async () => (await api(s, s.b).get('/v1/renders/usage')).json.data.renders.used as number;

  it('a warning otherwise; in strict mode VALIDATION_ERROR with the script message, nothing charged', async () => {
    const warned = await api(s, s.b).post('/v1/renders', { templateId: id, data: { a: 150 } });
    expect(warned.status).toBe(201);
    expect(warned.json.data.warnings).toContain(
      `SCRIPT_REJECTED_VALUE: Field "a": the form's own check refused "150": The value must be at most 100`,
    );
    const before = await used();
    const refused = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { a: 150 },
      options: { strict: true },
    });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: {
        field: 'a',
        received: '"150"',
        errors: [{ field: 'a', value: '150', message: 'The value must be at most 100' }],
      },
    });
    expect(await used()).toBe(before);
    // the reservation is gone, not a failed render
    const list = await api(s, s.b).get('/v1/renders');
    expect(list.json.data.filter((r: { status: string }) => r.status !== 'completed')).toEqual([]);
  });

  it('an async strict render fails with VALIDATION_ERROR, which does not count', async () => {
    const before = await used();
    const res = await api(s, s.b).post('/v1/renders', {
      templateId: id,
      data: { a: 150 },
      options: { strict: true, async: true },
    });
    expect(res.status).toBe(202);
    const renderId = res.json.data.renderId;
    let detail: { status: string; errorCode?: string; error?: { code: string; message: string } } | undefined;
    for (let i = 0; i < 600; i++) {
      detail = (await api(s, s.b).get(`/v1/renders/${renderId}`)).json.data;
      if (detail?.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(detail?.status).toBe('failed');
    expect(JSON.stringify(detail)).toContain('VALIDATION_ERROR');
    expect(JSON.stringify(detail)).toContain('The value must be at most 100');
    expect(await used()).toBe(before);
  });
});

describe('formcast render --no-calculate', () => {
  const BIN = path.join(repoRoot, 'bin/formcast.js');
  const cli = (args: string[]) =>
    run(process.execPath, [BIN, 'render', ...args], { env: { ...process.env, LOG_LEVEL: 'silent' }, cwd: repoRoot });

  it('ignores computed fields by default, refuses them with --strict, fills them with --no-calculate', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-computed-'));
    const template = path.join(dir, 'computed.pdf');
    writeFileSync(template, await computedForm());
    const data = path.join(dir, 'data.json');
    writeFileSync(data, JSON.stringify({ a: 1, b: 2, sum: 999, total: 5000 }));
    const out = path.join(dir, 'out.pdf');
    const value = async (field: string) =>
      (await PDFDocument.load(readFileSync(out), { updateMetadata: false })).getForm().getTextField(field).getText();

    const plain = await cli([template, data, '-o', out, '--no-flatten']);
    expect(plain.stderr).toContain('warning: COMPUTED_FIELD_IGNORED: Field "sum" is computed by the form');
    expect(await value('sum')).not.toBe('999.00');

    const strict = await cli([template, data, '-o', out, '--strict']).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(strict?.code).toBe(1);
    expect(strict?.stderr).toContain('Field "sum" is computed by the form');

    const own = await cli([template, data, '-o', out, '--no-flatten', '--no-calculate', '--strict']);
    expect(own.stderr).not.toContain('COMPUTED_FIELD_IGNORED');
    expect(await value('sum')).toBe('999.00');
    expect(await value('total')).toBe('5,000.00');

    // formcast types follows the JSON Schema: no property for a computed field
    const types = await run(process.execPath, [BIN, 'types', template], { cwd: repoRoot });
    expect(types.stdout).toMatch(/\ba\?: number \| null;/);
    expect(types.stdout).not.toMatch(/\b(sum|total)\?:/);
  });
});
