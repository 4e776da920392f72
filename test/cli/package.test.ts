// The release tarballs as a new user gets them: `npm pack` of the server (its `formcast` bin and build)
// and of @formcast/client, installed from the files into an empty folder (from npm's cache where it can),
// then `formcast --version`, a render of a corpus form, and an import of the client.
// Install scripts are skipped here: on Node 20 the only one that matters compiles better-sqlite3 12 for
// ten minutes, and nothing below opens SQLite there (the README says how to allow it); from Node 22 on
// the SQLite driver's binary is inside its package, and the test opens a database with it.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/corpus.js';

const run = promisify(execFile);
const corpus = corpusDir();
const work = mkdtempSync(path.join(tmpdir(), 'formcast-pack-'));
const version = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version as string;
// an installed node_modules is large: removed without blocking the test worker's event loop
afterAll(() => rm(work, { recursive: true, force: true }), 300_000);

const quietNpm = {
  ...process.env,
  npm_config_fund: 'false',
  npm_config_audit: 'false',
  npm_config_update_notifier: 'false',
};

async function pack(args: string[]): Promise<string> {
  // --ignore-scripts: the build is already there (npm test builds first; prepare builds on a plain pack)
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work, ...args], {
    cwd: repoRoot,
    env: quietNpm,
  });
  return path.join(work, stdout.trim().split('\n').at(-1)!);
}

describe.skipIf(!corpus)('the npm tarballs', { timeout: 900_000 }, () => {
  it('install into an empty folder and run: formcast --version, a render, the client', async () => {
    expect(existsSync(path.join(repoRoot, 'dist/main.js')), 'run `npm run build` first').toBe(true);
    expect(existsSync(path.join(repoRoot, 'packages/client/dist/index.js')), 'run `npm run build` first').toBe(true);
    const server = await pack([]);
    const client = await pack(['--workspace', '@formcast/client']);
    const { stdout: listing } = await run('tar', ['tzf', server]);
    for (const file of ['package/bin/formcast.js', 'package/dist/main.js', 'package/dist/web/index.html'])
      expect(listing.split('\n'), file).toContain(file);
    expect(listing).not.toMatch(/package\/(src|test)\//);

    const app = path.join(work, 'app');
    await run('mkdir', ['-p', app]);
    writeFileSync(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'try-formcast', private: true, type: 'module' }),
    );
    await run('npm', ['install', '--prefer-offline', '--ignore-scripts', server, client], { cwd: app, env: quietNpm });

    const bin = path.join(app, 'node_modules/.bin/formcast');
    expect((await run(bin, ['--version'], { cwd: app })).stdout.trim()).toBe(version);

    const form = path.join(corpus!, 'pdfs', 'pdfjs-required-fields.pdf');
    writeFileSync(path.join(app, 'data.json'), JSON.stringify({ Text1: 'from the tarball' }));
    await run(bin, ['render', form, 'data.json', '-o', 'out.pdf'], { cwd: app });
    expect(readFileSync(path.join(app, 'out.pdf')).subarray(0, 5).toString()).toBe('%PDF-');

    writeFileSync(
      path.join(app, 'client.mjs'),
      "import { createClient, verifyWebhook, FormcastError } from '@formcast/client';\n" +
        "const c = createClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'fc_x', retry: false });\n" +
        'const e = await c.templates.list().catch((err) => err);\n' +
        'console.log(typeof verifyWebhook, e instanceof FormcastError, e.code);\n',
    );
    expect((await run(process.execPath, ['client.mjs'], { cwd: app })).stdout.trim()).toBe(
      'function true NETWORK_ERROR',
    );

    if (Number(process.versions.node.split('.')[0]) >= 22) {
      // SQLite from the tarball: better-sqlite3 13's binary comes inside its package, no script needed
      const env = { ...process.env, DATA_DIR: path.join(app, 'data'), LOG_LEVEL: 'silent' };
      const { stdout } = await run(bin, ['accounts', 'create', '--name', 'Tar', '--plan', 'Pro', '--json'], {
        cwd: app,
        env,
      });
      expect(JSON.parse(stdout).apiKey).toMatch(/^fc_/);
    }
  });
});
