import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, DATABASES, startServer, uploadForm, type TestServer } from '../helpers/server.js';
import { createLogger } from '../../src/logger.js';
import * as hostile from '../helpers/hostile-pdfs.js';
import { makeIdentity } from '../helpers/signing.js';
import { corpusDir } from '../helpers/corpus.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sqliteDriver } from '../../src/adapters/db/sqlite-driver.js';

// Secrets (API keys, download signatures) must appear neither in logs, even at LOG_LEVEL=trace, nor in
// the database. One full run (upload, render, idempotent replay, download) with every log line captured,
// then the captured text and a dump of every table are searched for the key and every signature value.

for (const db of DATABASES) {
  describe.skipIf(!db.enabled)(
    `secrets stay out of logs and storage [${db.label}]${db.enabled ? '' : ' (skipped: TEST_DATABASE_URL not set)'}`,
    () => {
      let s: TestServer;
      const lines: string[] = [];
      beforeAll(async () => {
        const log = createLogger('trace', { write: (line: string) => void lines.push(line) });
        s = await startServer(db.name, { planA: 'Pro', env: { LOG_LEVEL: 'trace' }, overrides: { log } });
      });
      afterAll(async () => s?.close());

      /** Every row of every table, as text (SQLite read from its file; PostgreSQL from the test schema). */
      async function dumpDatabase(): Promise<string> {
        if (s.config.database.kind === 'sqlite') {
          const Database = sqliteDriver();
          const file = new Database(s.config.database.file, { readonly: true });
          try {
            const tables = file.prepare("select name from sqlite_master where type = 'table'").all() as {
              name: string;
            }[];
            return tables.map((t) => JSON.stringify(file.prepare(`select * from "${t.name}"`).all())).join('\n');
          } finally {
            file.close();
          }
        }
        const client = new pg.Client({ connectionString: s.config.database.url });
        await client.connect();
        try {
          const { rows: tables } = await client.query(
            'select table_name from information_schema.tables where table_schema = current_schema()',
          );
          const out: string[] = [];
          for (const t of tables)
            out.push(JSON.stringify((await client.query(`select * from "${t.table_name}"`)).rows));
          return out.join('\n');
        } finally {
          await client.end();
        }
      }

      it('keeps the API key and download signatures out of trace logs and the database', async () => {
        const up = await api(s, s.a).post(
          '/v1/templates',
          uploadForm(hostile.javascriptLaden(), 'js.pdf', { name: 'secret test' }),
        );
        expect(up.status).toBe(201);
        const body = { templateId: up.json.data.id, data: {} };
        const first = await api(s, s.a).post('/v1/renders', body, { 'idempotency-key': 'secrets-1' });
        expect(first.status).toBe(201);
        const replay = await api(s, s.a).post('/v1/renders', body, { 'idempotency-key': 'secrets-1' });
        expect(replay.status).toBe(201);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(replay.json.data.renderId).toBe(first.json.data.renderId);
        const signatures = new Set<string>();
        for (const url of [first.json.data.downloadUrl, replay.json.data.downloadUrl] as string[]) {
          const u = new URL(url);
          if (u.searchParams.get('signature')) signatures.add(u.searchParams.get('signature')!);
          if (u.searchParams.get('X-Amz-Signature')) signatures.add(u.searchParams.get('X-Amz-Signature')!);
          const file = await fetch(url);
          expect(file.status).toBe(200);
          await file.arrayBuffer();
        }
        expect(signatures.size).toBeGreaterThan(0);
        if (!s.nativeDownloads) {
          // links carrying the signature twice or under an encoded name are refused (and logged redacted)
          const u = new URL(first.json.data.downloadUrl);
          const sig = u.searchParams.get('signature')!;
          for (const q of [
            `${u.search}&signature=${sig}`,
            `${u.search}&signature=x`,
            `?expires=${u.searchParams.get('expires')}&%73ignature=${sig}`,
            `?expires=${u.searchParams.get('expires')}&sig%6eature=${sig}&signature=${sig}`,
          ]) {
            const res = await fetch(`${u.origin}${u.pathname}${q}`);
            expect(res.status, q).toBe(403);
            expect(((await res.json()) as any).error.code).toBe('DOWNLOAD_FORBIDDEN');
          }
        }

        const logs = lines.join('');
        expect(logs).toContain('"level":10'); // trace lines were captured
        expect(logs).not.toContain(s.a.key);
        expect(logs).not.toContain(s.a.key.slice(8)); // nor its secret part alone
        for (const sig of signatures) expect(logs).not.toContain(sig);

        const dump = await dumpDatabase();
        expect(dump).toContain(first.json.data.renderId); // the dump did read the records
        expect(dump).not.toContain(s.a.key);
        for (const sig of signatures) expect(dump).not.toContain(sig);
        expect(dump).not.toMatch(/signature=/i);
      });

      // Issue 26: "passwords are never logged or stored": a protected render's passwords (a good one, and
      // one refused for a bad permission), a PKCS#12's password (a wrong one and the right one) and its key.
      it.skipIf(!corpusDir())(
        'keeps protect passwords, PKCS#12 passwords and keys out of trace logs and the database',
        async () => {
          const dir = mkdtempSync(path.join(tmpdir(), 'formcast-secrets-'));
          try {
            const id = makeIdentity(dir, 'secrets');
            const p12Password = 'p12-secret'; // makeIdentity's
            const wrong = await api(s, s.b).post('/v1/signing-certificates', {
              pkcs12: id.p12,
              password: 'Wrong-P12-Pass',
            });
            expect(wrong.status).toBe(422);
            const cert = await api(s, s.b).post('/v1/signing-certificates', { pkcs12: id.p12, password: p12Password });
            expect(cert.status).toBe(201);

            const form = readFileSync(path.join(corpusDir()!, 'pdfs', 'pdfjs-required-fields.pdf'));
            const tpl = (await api(s, s.b).post('/v1/templates', uploadForm(form, 'f.pdf'))).json.data.id as string;
            const permissions = { print: true, copy: false, modify: false, annotate: false, fillForms: false };
            const protect = { userPassword: 'User-Open-Sesame-1', ownerPassword: 'Owner-Open-Sesame-2', permissions };
            const done = await api(s, s.b).post('/v1/renders', { templateId: tpl, data: {}, options: { protect } });
            expect(done.status, JSON.stringify(done.json)).toBe(201);
            const refused = await api(s, s.b).post('/v1/renders', {
              templateId: tpl,
              data: {},
              options: {
                protect: {
                  ...protect,
                  ownerPassword: 'Owner-Refused-3',
                  permissions: { ...permissions, print: 'yes' },
                },
              },
            });
            expect(refused.status).toBe(422);

            const logs = lines.join('');
            expect(logs).toContain('/v1/signing-certificates'); // these requests were logged, at trace
            const dump = await dumpDatabase();
            expect(dump).toContain(done.json.data.renderId);
            const key = id.keyPem.replace(/-----[^-]+-----|\s/g, '');
            for (const secret of [
              'Wrong-P12-Pass',
              p12Password,
              protect.userPassword,
              protect.ownerPassword,
              'Owner-Refused-3',
              key.slice(0, 64),
              id.p12.slice(100, 164),
            ]) {
              expect(logs, secret).not.toContain(secret);
              expect(dump, secret).not.toContain(secret);
            }
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      );
    },
  );
}
