// NUL (U+0000) in any text a client sends answers 422 VALIDATION_ERROR naming the place, on every
// backend (PostgreSQL cannot store it and used to answer 500).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusDir } from '../helpers/corpus.js';
import { DATABASES, api, startServer, uploadForm, type TestServer } from '../helpers/server.js';

const corpus = corpusDir();
const NUL = '\u0000';

for (const db of DATABASES) {
  describe.skipIf(!db.enabled || !corpus)(`NUL characters (${db.label})`, () => {
    let s: TestServer;
    let templateId: string;
    const pdf = () => readFileSync(path.join(corpus!, 'pdfs/pdfjs-required-fields.pdf'));
    beforeAll(async () => {
      s = await startServer(db.name);
      const up = await api(s, s.b).post('/v1/templates', uploadForm(pdf(), 'req.pdf'));
      templateId = up.json.data.id;
    });
    afterAll(async () => s?.close());

    const expectRefused = (res: { status: number; json: any }, field: string) => {
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.error.code).toBe('VALIDATION_ERROR');
      expect(res.json.error.details).toMatchObject({ field, received: 'a NUL character' });
    };

    it('in a template name, description or file name sent as multipart', async () => {
      expectRefused(await api(s, s.b).post('/v1/templates', uploadForm(pdf(), 'a.pdf', { name: `x${NUL}y` })), 'name');
      expectRefused(
        await api(s, s.b).post('/v1/templates', uploadForm(pdf(), 'a.pdf', { description: `x${NUL}` })),
        'description',
      );
      expectRefused(await api(s, s.b).post('/v1/templates', uploadForm(pdf(), `a${NUL}.pdf`)), 'file');
    });

    it('in a JSON body value or key', async () => {
      expectRefused(await api(s, s.b).patch(`/v1/templates/${templateId}`, { name: `x${NUL}` }), 'name');
      expectRefused(await api(s, s.b).patch(`/v1/templates/${templateId}`, { description: `${NUL}` }), 'description');
      expectRefused(await api(s, s.b).post('/v1/api-keys', { name: `k${NUL}` }), 'name');
      expectRefused(await api(s, s.b).post('/v1/renders', { templateId: `tpl_${NUL}`, data: {} }), 'templateId');
      expectRefused(await api(s, s.b).post('/v1/renders', { templateId, data: { [`f${NUL}`]: 'x' } }), 'data');
    });

    it('in a path id or a query value', async () => {
      expectRefused(await api(s, s.b).get('/v1/templates/tpl_%00'), 'id');
      expectRefused(await api(s, s.b).get('/v1/renders/rnd_%00x'), 'id');
      expectRefused(await api(s, s.b).delete('/v1/api-keys/key_%00'), 'id');
      expectRefused(await api(s, s.b).get('/v1/renders?templateId=tpl_%00'), 'templateId');
    });

    it('leaves the data intact: the template is unchanged', async () => {
      const t = await api(s, s.b).get(`/v1/templates/${templateId}`);
      expect(t.status).toBe(200);
      expect(t.json.data.name).toBe('req.pdf');
    });
  });
}
