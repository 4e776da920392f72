// The OpenAPI document is not tied to openapi-typescript (which the SDK and dashboard use): a second, unrelated
// generator (@hey-api/openapi-ts, pure JavaScript, no jar or binary) makes a fetch client from it, a small strict
// program written against that client compiles, and it uploads a form, renders it and downloads the PDF from a
// real server.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient as generateClient } from '@hey-api/openapi-ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftotext } from '../helpers/pdf-tools.js';
import { startServer, type TestServer } from '../helpers/server.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpus = corpusDir();
const run = promisify(execFile);

// Written as an integrator would, against the generated names only; every call typed by the generator.
const PROGRAM = `import { createClient } from './generated/client/index.js';
import { createRender, createTemplate, downloadFile, getRender, getTemplateSchema } from './generated/sdk.gen.js';
import type { RenderDetail, RenderRequest } from './generated/types.gen.js';

export interface Outcome {
  templateId: string;
  field: string;
  render: RenderDetail;
  pdf: Uint8Array;
}

export async function fillForm(baseUrl: string, apiKey: string, form: ArrayBuffer, text: string): Promise<Outcome> {
  const client = createClient({ baseUrl, auth: apiKey });
  const created = await createTemplate({
    client,
    throwOnError: true,
    body: { file: new Blob([form], { type: 'application/pdf' }), name: 'From a generated client' },
  });
  const templateId: string = created.data.data.id;

  const schema = await getTemplateSchema({ client, throwOnError: true, path: { id: templateId } });
  const field = schema.data.data.schema.fields.find((f) => f.type === 'text');
  if (!field) throw new Error('the form has no text field');

  const request: RenderRequest = { templateId, data: { [field.name]: text } };
  const made = await createRender({ client, throwOnError: true, body: request });
  const read = await getRender({ client, throwOnError: true, path: { id: made.data.data.id } });
  const link = read.data.data.downloadUrl;
  if (!link) throw new Error('the render has no download link: ' + read.data.data.status);

  // The signed link, followed through the generated operation: its id and query are typed parameters.
  const url = new URL(link);
  const file = await downloadFile({
    client,
    throwOnError: true,
    parseAs: 'blob',
    path: { id: decodeURIComponent(url.pathname.split('/').pop() ?? '') },
    query: {
      expires: url.searchParams.get('expires') ?? undefined,
      signature: url.searchParams.get('signature') ?? undefined,
    },
  });
  return { templateId, field: field.name, render: read.data.data, pdf: new Uint8Array(await file.data.arrayBuffer()) };
}
`;

// Strict, self-contained: DOM lib for fetch/Blob/FormData, no @types of this repository.
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    noEmit: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    noUnusedLocals: true,
    exactOptionalPropertyTypes: false,
  },
  include: ['*.ts', 'generated/**/*.ts'],
};

describe.skipIf(!corpus)('a client made by a second generator (@hey-api/openapi-ts)', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'formcast-heyapi-'));
  let s: TestServer;

  beforeAll(async () => {
    s = await startServer('sqlite');
  });
  afterAll(async () => {
    await s?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('generates a fetch client from openapi/openapi.json', async () => {
    await generateClient({
      input: path.join(repo, 'openapi/openapi.json'),
      output: path.join(work, 'generated'),
      plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
      logs: { level: 'silent', file: false },
    });
    const sdk = readFileSync(path.join(work, 'generated/sdk.gen.ts'), 'utf8');
    for (const op of ['createTemplate', 'createRender', 'getRender', 'downloadFile', 'createRenderBatch'])
      expect(sdk).toContain(`export const ${op} =`);
  });

  it('compiles a strict program against the generated client', async () => {
    writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(path.join(work, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    writeFileSync(path.join(work, 'program.ts'), PROGRAM);
    const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
    const compile = () =>
      run(process.execPath, [tsc, '-p', work], { cwd: work }).then(
        () => '',
        (e) => String(e.stdout),
      );
    expect(await compile()).toBe('');

    // the compiler does check it: a wrong body type is refused
    writeFileSync(
      path.join(work, 'wrong.ts'),
      `import { createRender } from './generated/sdk.gen.js';\nexport const bad = () => createRender({ body: { templateId: 42, data: {} } });\n`,
    );
    expect(await compile()).toMatch(/wrong\.ts.*error TS2322/);
    rmSync(path.join(work, 'wrong.ts'));
  });

  it('runs the program against a real server: upload, render, read, download', async () => {
    const program = (await import(path.join(work, 'program.ts'))) as {
      fillForm(
        baseUrl: string,
        apiKey: string,
        form: ArrayBuffer,
        text: string,
      ): Promise<{
        templateId: string;
        field: string;
        render: { id: string; status: string; templateId: string };
        pdf: Uint8Array;
      }>;
    };
    const form = readFileSync(path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf'));
    const text = 'Hey API client';
    const out = await program.fillForm(
      s.url,
      s.b.key,
      form.buffer.slice(form.byteOffset, form.byteOffset + form.byteLength),
      text,
    );
    expect(out.render).toMatchObject({ status: 'completed', templateId: out.templateId });
    expect(Buffer.from(out.pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    if (hasTool('pdftotext')) {
      const file = path.join(work, 'out.pdf');
      writeFileSync(file, out.pdf);
      expect(await pdftotext(file)).toContain(text);
    }
  });
});
