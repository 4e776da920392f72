import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { corpusDir } from '../helpers/corpus.js';
import { hasTool, pdftkFields } from '../helpers/pdf-tools.js';
import { databaseBefore } from '../helpers/older-database.js';
import { openDatabase } from '../../src/adapters/db/database.js';
import { getAccountSettings, updateAccountSettingsOf } from '../../src/modules/accounts/account-settings.js';

// GET/PATCH /v1/account/settings: the account's render locale and time zone, below a request's options and
// a template's, above the operator's. "31/12/1990" is a short date in fr-FR and no date at all in en-US,
// so which locale applied shows in the answer; a date-time near midnight UTC shows the time zone.

const corpus = corpusDir();
const FRENCH_DATE = '31/12/1990';

for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(`account settings [${db.label}]`, () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startServer(db.name);
    });
    afterAll(async () => s?.close());

    it('starts empty, with the server defaults as the effective values', async () => {
      const res = await api(s, s.a).get('/v1/account/settings');
      expect(res.status).toBe(200);
      expect(res.json.data).toEqual({
        locale: null,
        timezone: null,
        effective: { locale: 'fr-FR', timezone: 'Europe/Paris' },
      });
    });

    it('sets, keeps what a patch leaves out, clears with null, and stays per account', async () => {
      const set = await api(s, s.a).patch('/v1/account/settings', { locale: 'en-US', timezone: 'America/New_York' });
      expect(set.status, JSON.stringify(set.json)).toBe(200);
      expect(set.json.data).toEqual({
        locale: 'en-US',
        timezone: 'America/New_York',
        effective: { locale: 'en-US', timezone: 'America/New_York' },
      });
      const one = await api(s, s.a).patch('/v1/account/settings', { timezone: 'UTC' });
      expect(one.json.data).toMatchObject({ locale: 'en-US', timezone: 'UTC' });
      expect((await api(s, s.a).get('/v1/account/settings')).json.data).toMatchObject({
        locale: 'en-US',
        timezone: 'UTC',
      });
      // the other tenant is untouched
      expect((await api(s, s.b).get('/v1/account/settings')).json.data).toMatchObject({ locale: null, timezone: null });
      const cleared = await api(s, s.a).patch('/v1/account/settings', { locale: null, timezone: null });
      expect(cleared.json.data).toEqual({
        locale: null,
        timezone: null,
        effective: { locale: 'fr-FR', timezone: 'Europe/Paris' },
      });
    });

    it('refuses unknown locales and zones, an empty patch and other properties, and anonymous calls', async () => {
      for (const [body, field] of [
        [{ locale: 'xx-!!' }, 'locale'],
        [{ locale: 'qq-ZZ' }, 'locale'],
        [{ timezone: 'Mars/Olympus' }, 'timezone'],
        [{ timezone: 'Europe/Paris', locale: 'not a tag' }, 'locale'],
        [{}, 'body'],
      ] as const) {
        const res = await api(s, s.a).patch('/v1/account/settings', body);
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(res.json.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
      }
      expect((await api(s, s.a).patch('/v1/account/settings', { plan: 'Business' })).status).toBe(422);
      expect((await api(s, s.a).patch('/v1/account/settings', { locale: 42 })).status).toBe(422);
      expect((await api(s).get('/v1/account/settings')).status).toBe(401);
      // nothing refused was stored
      expect((await api(s, s.a).get('/v1/account/settings')).json.data).toMatchObject({ locale: null, timezone: null });
    });

    describe.skipIf(!corpus)('renders', () => {
      let id: string;
      let birth: string;
      beforeAll(async () => {
        const bytes = readFileSync(path.join(corpus!, 'pdfs', 'pdflib-sample-form.pdf'));
        id = (await api(s, s.b).post('/v1/templates', uploadForm(bytes, 'sample.pdf'))).json.data.id;
        const fields = (await api(s, s.b).get(`/v1/templates/${id}/schema`)).json.data.schema.fields;
        birth = fields.find((f: { pdfMeta: { originalName: string } }) => f.pdfMeta.originalName === 'Birthdate').name;
      });
      afterAll(async () => {
        await api(s, s.b).patch('/v1/account/settings', { locale: null, timezone: null });
      });
      const render = (data: object, options?: object) =>
        api(s, s.b).post('/v1/renders', { templateId: id, data, options });

      it('apply below the request options and the template, above the server', async () => {
        expect((await render({ [birth]: FRENCH_DATE })).status).toBe(201);
        await api(s, s.b).patch('/v1/account/settings', { locale: 'en-US' });
        const refused = await render({ [birth]: FRENCH_DATE });
        expect(refused.status).toBe(422);
        expect(refused.json.error.details.field).toBe(birth);
        // an async render is checked against the same locale before it is accepted
        expect((await render({ [birth]: FRENCH_DATE }, { async: true })).status).toBe(422);
        // so is a preview
        const preview = await api(s, s.b).post(`/v1/templates/${id}/preview`, { data: { [birth]: FRENCH_DATE } });
        expect(preview.status).toBe(422);
        // the request's options win over the account
        expect((await render({ [birth]: FRENCH_DATE }, { locale: 'fr-FR' })).status).toBe(201);
        // and so does the template
        await api(s, s.b).patch(`/v1/templates/${id}`, { locale: 'fr-FR' });
        expect((await render({ [birth]: FRENCH_DATE })).status).toBe(201);
        await api(s, s.b).patch(`/v1/templates/${id}`, { locale: null });
        expect((await render({ [birth]: FRENCH_DATE })).status).toBe(422);
        await api(s, s.b).patch('/v1/account/settings', { locale: null });
        expect((await render({ [birth]: FRENCH_DATE })).status).toBe(201);
      });

      it.skipIf(!hasTool('pdftk'))(
        'convert date-times to the account time zone when the template sets none',
        async () => {
          await api(s, s.b).patch('/v1/account/settings', { locale: 'en-US', timezone: 'America/New_York' });
          // 23:30 UTC on Dec 31st is still Dec 31st in New York (it is Jan 1st in Paris)
          const rendered = await render({ [birth]: '1990-12-31T23:30:00Z' }, { flatten: false });
          expect(rendered.status).toBe(201);
          const file = path.join(mkdtempSync(path.join(tmpdir(), 'account-tz-')), 'out.pdf');
          writeFileSync(file, Buffer.from(await (await fetch(rendered.json.data.downloadUrl)).arrayBuffer()));
          expect((await pdftkFields(file)).find((f) => f.name === 'Birthdate')!.values.at(-1)).toBe('12/31/1990');
          // the job runner reads them too, for an async render
          const queued = await render({ [birth]: '1990-12-31T23:30:00Z' }, { flatten: false, async: true });
          expect(queued.status).toBe(202);
          let done: any;
          for (let i = 0; i < 600 && done?.status !== 'completed'; i++) {
            done = (await api(s, s.b).get(`/v1/renders/${queued.json.data.id}`)).json.data;
            if (done?.status === 'failed') throw new Error(JSON.stringify(done.error));
            if (done?.status !== 'completed') await new Promise((r) => setTimeout(r, 50));
          }
          writeFileSync(file, Buffer.from(await (await fetch(done.downloadUrl)).arrayBuffer()));
          expect((await pdftkFields(file)).find((f) => f.name === 'Birthdate')!.values.at(-1)).toBe('12/31/1990');
          // a template zone wins: Tokyo is already on Jan 1st
          await api(s, s.b).patch(`/v1/templates/${id}`, { timezone: 'Asia/Tokyo' });
          const tokyo = await render({ [birth]: '1990-12-31T23:30:00Z' }, { flatten: false });
          writeFileSync(file, Buffer.from(await (await fetch(tokyo.json.data.downloadUrl)).arrayBuffer()));
          expect((await pdftkFields(file)).find((f) => f.name === 'Birthdate')!.values.at(-1)).toBe('01/01/1991');
          await api(s, s.b).patch(`/v1/templates/${id}`, { timezone: null });
        },
      );
    });
  });
}

describe('account settings under operator defaults', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer('sqlite', { env: { DEFAULT_LOCALE: 'de-DE', DEFAULT_TIMEZONE: 'UTC' } });
  });
  afterAll(async () => s?.close());

  it("shows the operator's values as effective until the account sets its own", async () => {
    expect((await api(s, s.a).get('/v1/account/settings')).json.data.effective).toEqual({
      locale: 'de-DE',
      timezone: 'UTC',
    });
    const set = await api(s, s.a).patch('/v1/account/settings', { locale: 'ja-JP' });
    expect(set.json.data.effective).toEqual({ locale: 'ja-JP', timezone: 'UTC' });
  });
});

describe.each(DATABASES.filter((d) => d.enabled))('account settings migration ($label)', ({ name }) => {
  it('upgrades a database with accounts in it: no settings, then they are stored', async () => {
    const { config, older, cleanup } = await databaseBefore(name, '0010_account_settings');
    try {
      await older
        .insertInto('accounts')
        .values({ id: 'acc_m', name: 'm', plan: 'Pro', created_at: '2030-01-01' })
        .execute();
      await older.destroy();
      const now = await openDatabase(config);
      try {
        const deps = { db: now.db, config: { renderDefaults: { locale: 'fr-FR', timezone: 'Europe/Paris' } } };
        expect(await getAccountSettings(deps, 'acc_m')).toMatchObject({ locale: null, timezone: null });
        expect(await updateAccountSettingsOf(deps, 'acc_m', { timezone: 'UTC' })).toMatchObject({
          locale: null,
          timezone: 'UTC',
          effective: { locale: 'fr-FR', timezone: 'UTC' },
        });
      } finally {
        await now.close();
      }
    } finally {
      await cleanup();
    }
  });
});
