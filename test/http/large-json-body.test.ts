// A render whose JSON body is large and not ASCII (issue 27: such bodies are decoded through ICU and
// hashed from their bytes for Idempotency-Key, src/lib/utf8.ts and src/http/json-body.ts): the value
// reaches the PDF exactly as sent, a retry with the same key and body replays, a body one character
// apart is another body. The database plays no part in decoding: SQLite only.
import { PDFDocument } from '@cantoo/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineAndMultiLineForm } from '../helpers/hostile-pdfs.js';
import { api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

/** ~60 KB of UTF-8 in NFC (a render stores NFC): accented Latin, Greek, CJK, Hangul and astral characters. */
const TEXT = 'Élodie Müller-Ångström, Ζυρίχη; 中文テキスト 한국어 😀𝄞 '.repeat(800).trim();

async function valueIn(url: string, field: string): Promise<string | undefined> {
  const doc = await PDFDocument.load(new Uint8Array(await (await fetch(url)).arrayBuffer()), { updateMetadata: false });
  return doc.getForm().getTextField(field).getText();
}

describe('a large non-ASCII JSON body', () => {
  let s: TestServer;
  let templateId: string;
  beforeAll(async () => {
    s = await startServer('sqlite', { planA: 'Pro' });
    const up = await api(s, s.a).post('/v1/templates', uploadForm(lineAndMultiLineForm(), 'lines.pdf'));
    expect(up.status).toBe(201);
    templateId = up.json.data.id;
  });
  afterAll(() => s?.close());

  it('puts the value in the PDF as sent', async () => {
    expect(Buffer.byteLength(JSON.stringify({ templateId, data: { multi: TEXT } }))).toBeGreaterThan(32 * 1024);
    const res = await api(s, s.a).post('/v1/renders', {
      templateId,
      data: { multi: TEXT },
      options: { flatten: false },
    });
    expect(res.status, res.text).toBe(201);
    expect(await valueIn(res.json.data.downloadUrl, 'multi')).toBe(TEXT);
  });

  it('replays for the same Idempotency-Key and body, and refuses another body under that key', async () => {
    const body = { templateId, data: { multi: TEXT }, options: { flatten: false } };
    const headers = { 'idempotency-key': 'large-unicode-1' };
    const first = await api(s, s.a).post('/v1/renders', body, headers);
    expect(first.status, first.text).toBe(201);
    const again = await api(s, s.a).post('/v1/renders', body, headers);
    expect(again.status).toBe(201);
    expect(again.json.data.renderId).toBe(first.json.data.renderId);
    // one non-ASCII character in the middle changed (ö for ó): two bytes of ~60,000 differ
    const half = TEXT.length >> 1;
    const other = { ...body, data: { multi: `${TEXT.slice(0, half)}${TEXT.slice(half).replace('ö', 'ó')}` } };
    const reused = await api(s, s.a).post('/v1/renders', other, headers);
    expect(reused.status).toBe(422);
    expect(reused.json.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });
});
