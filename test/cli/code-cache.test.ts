import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { codeCacheFolder } from '../../src/cli/code-cache.js';
import { corpusDir, repoRoot } from '../helpers/corpus.js';

const run = promisify(execFile);

/** A small CommonJS bundle in a folder of its own: it requires a built-in and reads its own file name. */
function makeBundle(body = 'return a + b;'): { dir: string; bundle: string; cache: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'formcast-code-cache-'));
  const bundle = path.join(dir, 'bundle.cjs');
  writeFileSync(
    bundle,
    `"use strict";\nconst path = require("node:path");\n` +
      `exports.add = function (a, b) { ${body} };\nexports.name = path.basename(__filename);\n`,
  );
  const cache = path.join(dir, 'cache');
  mkdirSync(cache, { mode: 0o700 });
  return { dir, bundle, cache };
}

const cacheFiles = (folder: string) => readdirSync(folder).filter((f) => f.endsWith('.v8cache'));

/**
 * Loads `bundle` in a node process of its own (the build's code-cache.js), calls add(2, 3), saves the
 * cache. A process of its own: inside one, V8 answers a second compile of the same source from memory and
 * never looks at the cache.
 */
async function loadInChild(
  bundle: string,
  cache: string | null,
  /** V8 flags set after the load and before the save (as a thread's flag not put back would be) */
  flagsMeanwhile = '',
): Promise<{ used: boolean; sum: number; name: string }> {
  const code = `import { loadBundle } from ${JSON.stringify(path.join(repoRoot, 'dist/cli/code-cache.js'))};
import v8 from 'node:v8';
const [bundle, cache, flags] = JSON.parse(process.argv[1]);
const loaded = loadBundle(bundle, cache ?? undefined);
const out = { used: loaded.cacheUsed, sum: loaded.exports.add(2, 3), name: loaded.exports.name };
if (flags) v8.setFlagsFromString(flags);
loaded.save();
console.log(JSON.stringify(out));`;
  const { stdout } = await run(process.execPath, [
    '--input-type=module',
    '-e',
    code,
    JSON.stringify([bundle, cache, flagsMeanwhile]),
  ]);
  return JSON.parse(stdout);
}

describe('loadBundle: a CommonJS bundle through a V8 code cache', () => {
  it('runs without a cache, writes one after the work, and the next run uses it', async () => {
    const { bundle, cache } = makeBundle();
    expect(await loadInChild(bundle, cache)).toEqual({ used: false, sum: 5, name: 'bundle.cjs' });
    expect(cacheFiles(cache)).toHaveLength(1);
    const file = path.join(cache, cacheFiles(cache)[0]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const before = statSync(file).mtimeMs;
    expect(await loadInChild(bundle, cache)).toEqual({ used: true, sum: 5, name: 'bundle.cjs' });
    expect(statSync(file).mtimeMs).toBe(before); // nothing written: the cache was used
  });

  it('ignores a corrupt, truncated or foreign cache file and replaces it', async () => {
    const { bundle, cache } = makeBundle();
    await loadInChild(bundle, cache);
    const file = path.join(cache, cacheFiles(cache)[0]);
    const good = readFileSync(file);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 10] ^= 0xff; // inside V8's data: our checksum no longer matches
    // another source's cache under this name (whole, our checksum right): V8's own check refuses it
    const other = makeBundle('return a + b + 0;');
    await loadInChild(other.bundle, other.cache);
    const foreign = readFileSync(path.join(other.cache, cacheFiles(other.cache)[0]));
    for (const bad of [flipped, good.subarray(0, 20), Buffer.from('not a cache at all'), foreign]) {
      writeFileSync(file, bad);
      expect(await loadInChild(bundle, cache)).toMatchObject({ used: false, sum: 5 });
      expect(await loadInChild(bundle, cache)).toMatchObject({ used: true, sum: 5 });
    }
  });

  it('keeps one whole file when two runs write at once, and drops the caches of earlier builds', async () => {
    const { bundle, cache } = makeBundle();
    const both = await Promise.all([loadInChild(bundle, cache), loadInChild(bundle, cache)]);
    expect(both.map((r) => r.sum)).toEqual([5, 5]);
    expect(readdirSync(cache)).toHaveLength(1); // no temporary file left behind
    expect(await loadInChild(bundle, cache)).toMatchObject({ used: true });

    writeFileSync(bundle, `${readFileSync(bundle, 'utf8')}exports.rebuilt = true;\n`);
    expect(await loadInChild(bundle, cache)).toMatchObject({ used: false, sum: 5 });
    expect(cacheFiles(cache)).toHaveLength(1);
    expect(await loadInChild(bundle, cache)).toMatchObject({ used: true, sum: 5 });
  });

  it("files a cache made under other V8 flags than its load under those flags, apart from the load's", async () => {
    const { bundle, cache } = makeBundle();
    expect(await loadInChild(bundle, cache, '--liftoff-only')).toMatchObject({ used: false, sum: 5 });
    expect(cacheFiles(cache)).toHaveLength(1);
    // a load under the default flags: that file is not its own, so it writes one of its own and uses it next
    expect(await loadInChild(bundle, cache)).toMatchObject({ used: false, sum: 5 });
    expect(cacheFiles(cache)).toHaveLength(2);
    expect(await loadInChild(bundle, cache)).toMatchObject({ used: true, sum: 5 });
    // used, then flags changed before the save: the changed flags get their file (here the one above)
    const before = cacheFiles(cache).map((f) => statSync(path.join(cache, f)).mtimeMs);
    expect(await loadInChild(bundle, cache, '--liftoff-only')).toMatchObject({ used: true, sum: 5 });
    const after = cacheFiles(cache).map((f) => statSync(path.join(cache, f)).mtimeMs);
    expect(after.filter((t, i) => t !== before[i])).toHaveLength(1);
  });

  it('runs without a cache when there is no folder', async () => {
    const { bundle } = makeBundle();
    expect(await loadInChild(bundle, null)).toEqual({ used: false, sum: 5, name: 'bundle.cjs' });
  });
});

describe('codeCacheFolder', () => {
  it('is $XDG_CACHE_HOME/formcast, created for this user alone', () => {
    const xdg = mkdtempSync(path.join(tmpdir(), 'formcast-xdg-'));
    const folder = codeCacheFolder({ XDG_CACHE_HOME: xdg });
    expect(folder).toBe(path.join(xdg, 'formcast'));
    expect(statSync(folder!).mode & 0o777).toBe(0o700);
  });

  it('never uses a folder others may write to (a cache file is code the process runs)', () => {
    const xdg = mkdtempSync(path.join(tmpdir(), 'formcast-xdg-'));
    mkdirSync(path.join(xdg, 'formcast'));
    chmodSync(path.join(xdg, 'formcast'), 0o777);
    const folder = codeCacheFolder({ XDG_CACHE_HOME: xdg });
    expect(folder).not.toBe(path.join(xdg, 'formcast'));
    if (folder) expect(statSync(folder).mode & 0o022).toBe(0);
  });
});

describe.skipIf(!corpusDir())('formcast render and its code cache (the build)', () => {
  it('writes the cache on the first render, uses it on the next, and survives a damaged one: same bytes each time', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-cli-cache-'));
    const env = { ...process.env, XDG_CACHE_HOME: path.join(dir, 'xdg') };
    const template = path.join(corpusDir()!, 'pdfs', 'pdfjs-required-fields.pdf');
    writeFileSync(path.join(dir, 'data.json'), JSON.stringify({}));
    const render = (out: string) =>
      run(
        process.execPath,
        [path.join(repoRoot, 'bin/formcast.js'), 'render', template, path.join(dir, 'data.json'), '-o', out],
        {
          env,
        },
      );
    const folder = path.join(dir, 'xdg', 'formcast');

    await render(path.join(dir, '1.pdf'));
    const [name, ...others] = cacheFiles(folder);
    expect(name).toMatch(/^render\.cjs-/);
    expect(others).toEqual([]); // no value needed a fallback font: fontkit was not loaded
    const file = path.join(folder, name);
    const written = statSync(file).mtimeMs;
    await render(path.join(dir, '2.pdf'));
    expect(statSync(file).mtimeMs).toBe(written); // used, not written again

    writeFileSync(file, Buffer.alloc(4096, 0x41));
    await render(path.join(dir, '3.pdf'));
    expect(readFileSync(file).subarray(0, 4).toString()).toBe('FCV8'); // replaced by a good one
    const first = readFileSync(path.join(dir, '1.pdf'));
    expect(readFileSync(path.join(dir, '2.pdf')).equals(first)).toBe(true);
    expect(readFileSync(path.join(dir, '3.pdf')).equals(first)).toBe(true);
  });
});

describe.skipIf(!corpusDir())('formcast render of a value drawn with a fallback font (the build)', () => {
  /** `formcast render` of a corpus form with `data`, in a folder of its own with its own cache folder. */
  function cliRenders(form: string, data: Record<string, string>) {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-cli-fontkit-'));
    const env = { ...process.env, XDG_CACHE_HOME: path.join(dir, 'xdg') };
    const template = path.join(corpusDir()!, 'pdfs', form);
    writeFileSync(path.join(dir, 'data.json'), JSON.stringify(data));
    const render = (out: string) =>
      run(process.execPath, [path.join(repoRoot, 'bin/formcast.js'), 'render', template, 'data.json', '-o', out], {
        env,
        cwd: dir,
      });
    return { dir, folder: path.join(dir, 'xdg', 'formcast'), render };
  }

  it('loads fontkit from its own bundle through a code cache: written once, then used, same bytes', async () => {
    // Greek and Hebrew: not in the standard faces, drawn with the bundled Noto fonts
    const { dir, folder, render } = cliRenders('pdfjs-required-fields.pdf', { Text1: 'Ελληνικά', Text2: 'שלום' });
    await render('1.pdf');
    const fontkitCache = cacheFiles(folder).find((f) => f.startsWith('fontkit.cjs-'));
    expect(fontkitCache, cacheFiles(folder).join(', ')).toBeTruthy();
    const written = statSync(path.join(folder, fontkitCache!)).mtimeMs;
    await render('2.pdf');
    expect(statSync(path.join(folder, fontkitCache!)).mtimeMs).toBe(written); // used, not written again
    expect(cacheFiles(folder)).toHaveLength(2);
    const first = readFileSync(path.join(dir, '1.pdf'));
    expect(readFileSync(path.join(dir, '2.pdf')).equals(first)).toBe(true);
    // the drawn text is the values' (pdftotext is one reader; the reader matrix checks the rest)
    const { stdout } = await run('pdftotext', [path.join(dir, '1.pdf'), '-']).catch((err) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { stdout: null }; // poppler not installed
      throw err;
    });
    if (stdout !== null) expect(stdout).toContain('Ελληνικά');
  });

  it('writes the fontkit cache for a form with scripts too (its sandbox changes V8 flags meanwhile)', async () => {
    // Luxembourg's certificate computes its totals: the render starts a baseline-only sandbox
    const { dir, folder, render } = cliRenders('luxembourg-certificat-salaire-160-2019.pdf', { NOM: 'مرحبا بالعالم' });
    await render('1.pdf');
    const fontkit = () => cacheFiles(folder).filter((f) => f.startsWith('fontkit.cjs-'));
    expect(fontkit(), cacheFiles(folder).join(', ')).toHaveLength(1);
    await render('2.pdf');
    expect(readFileSync(path.join(dir, '2.pdf')).equals(readFileSync(path.join(dir, '1.pdf')))).toBe(true);
  });

  it("defers brotli's decoder (WOFF2 only) to its first use", async () => {
    // the build replaced fontkit's require of it with a stand-in: brotli's own code is not in the bundle
    const text = readFileSync(path.join(repoRoot, 'dist/cli/fontkit.cjs'), 'latin1');
    expect(text).toContain('lazy-brotli:brotli/decompress.js');
    expect(text).not.toMatch(/brotli[\\/]dec[\\/]dictionary-data/);
    const code = `import { loadBundle } from ${JSON.stringify(path.join(repoRoot, 'dist/cli/code-cache.js'))};
import { createRequire } from 'node:module';
const bundle = ${JSON.stringify(path.join(repoRoot, 'dist/cli/fontkit.cjs'))};
const fontkit = loadBundle(bundle, undefined).exports;
const loaded = Object.keys(createRequire(bundle).cache).filter((k) => k.includes('brotli'));
// where the stand-in will look for it: from the installed fontkit's folder
const at = createRequire(createRequire(bundle).resolve('@cantoo/fontkit')).resolve('brotli/decompress.js');
console.log(JSON.stringify({ create: typeof fontkit.create, loaded, at }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code]);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ create: 'function', loaded: [] });
    expect(out.at).toMatch(/brotli/);
  });
});

describe("the CLI's fontkit bundle inflates with Node's zlib", () => {
  it('shapes complex scripts (its Unicode tables) and reads WOFF fonts as the package does', async () => {
    const text = readFileSync(path.join(repoRoot, 'dist/cli/fontkit.cjs'), 'latin1');
    expect(text).toContain('native-inflate:fflate');
    // the same script in the package and in the bundle: glyphs and positions of Arabic and Devanagari text
    // (joining and Indic shaping read the inflated tables), and the glyphs of a WOFF made from the Arabic font
    const code = `import { loadBundle } from ${JSON.stringify(path.join(repoRoot, 'dist/cli/code-cache.js'))};
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
const require = createRequire(${JSON.stringify(path.join(repoRoot, 'package.json'))});
const fontkit = process.argv[1] === 'bundle'
  ? loadBundle(${JSON.stringify(path.join(repoRoot, 'dist/cli/fontkit.cjs'))}, undefined).exports
  : require('@cantoo/fontkit');
const file = (f) => readFileSync(require.resolve('@expo-google-fonts/' + f));
/** WOFF 1.0 around a TrueType file: every table deflated. */
function woff(ttf) {
  const n = ttf.readUInt16BE(4);
  const tables = [];
  for (let i = 0; i < n; i++) {
    const at = 12 + i * 16;
    const data = ttf.subarray(ttf.readUInt32BE(at + 8), ttf.readUInt32BE(at + 8) + ttf.readUInt32BE(at + 12));
    tables.push({ tag: ttf.subarray(at, at + 4), sum: ttf.readUInt32BE(at + 4), data, packed: deflateSync(data) });
  }
  const head = Buffer.alloc(44 + n * 20);
  head.write('wOFF', 0, 'latin1');
  head.writeUInt32BE(ttf.readUInt32BE(0), 4);
  head.writeUInt16BE(n, 12);
  let offset = head.length;
  const parts = [head];
  tables.forEach((t, i) => {
    const at = 44 + i * 20;
    t.tag.copy(head, at);
    head.writeUInt32BE(offset, at + 4);
    head.writeUInt32BE(t.packed.length, at + 8);
    head.writeUInt32BE(t.data.length, at + 12);
    head.writeUInt32BE(t.sum, at + 16);
    const padded = Buffer.alloc((t.packed.length + 3) & ~3);
    t.packed.copy(padded);
    parts.push(padded);
    offset += padded.length;
  });
  head.writeUInt32BE(offset, 8);
  return Buffer.concat(parts);
}
const shaped = (font, s) => {
  const run = font.layout(s);
  return { glyphs: run.glyphs.map((g) => g.id), positions: run.positions };
};
const arabic = file('noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf');
const asWoff = fontkit.create(woff(arabic));
console.log(JSON.stringify({
  arabic: shaped(fontkit.create(arabic), 'مرحبا بالعالم'),
  devanagari: shaped(fontkit.create(file('noto-sans-devanagari/400Regular/NotoSansDevanagari_400Regular.ttf')), 'क्षत्रिय हिन्दी'),
  woff: { type: asWoff.type, ...shaped(asWoff, 'مرحبا بالعالم') },
}));`;
    const [pkg, bundled] = await Promise.all(
      ['package', 'bundle'].map(async (which) =>
        JSON.parse((await run(process.execPath, ['--input-type=module', '-e', code, which])).stdout),
      ),
    );
    expect(pkg.woff.type).toBe('WOFF');
    expect(pkg.woff.glyphs).toEqual(pkg.arabic.glyphs);
    expect(pkg.arabic.glyphs.length).toBeGreaterThan(5);
    expect(bundled).toEqual(pkg);
  });
});
