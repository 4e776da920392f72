// Build step after tsc: the database-only CLI commands (accounts, keys) become self-contained files.
// Node resolves and reads every file of a module graph at start-up; Kysely alone is ~280 files, which
// made `formcast accounts list` ~2.5x slower than `node -e 0` before it opened the database. esbuild
// (at build time only; no transpiler runs when the CLI does) inlines our code and Kysely into
// dist/cli/accounts.js and dist/cli/keys.js (and one chunk they share), replacing tsc's output; packages with native code or
// only needed on other paths (better-sqlite3, pg) stay external and load as usual. Source maps
// follow tsc's, so stack traces still point at src/.
// The offline `formcast render` gets the same treatment: its graph is ~440 files (pdf-lib alone 194),
// whose resolving and reading was a third of the command's start-up; dist/cli/render.cjs is one
// file with pdf-lib and the pure-JS packages the engine imports (src/main.ts runs it through a V8 code
// cache, src/cli/code-cache.ts). pdfjs-dist stays external (imported lazily, only when a form's scripts
// run), and so does what only the server loads.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
/** Inlined: pure-JS packages the database path loads. Everything else stays an import. */
const INLINE = new Set(['kysely']);
const external = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})].filter(
  (d) => !INLINE.has(d),
);

const outdir = path.join(root, 'dist/cli');
// Chunks of earlier builds (tsc does not clean dist/).
for (const f of readdirSync(outdir)) if (/^db-.*\.js(\.map)?$/.test(f)) rmSync(path.join(outdir, f));

// One build for both (they share a chunk: keys imports from accounts), read before anything is written.
await esbuild.build({
  entryPoints: ['accounts', 'keys'].map((name) => path.join(outdir, `${name}.js`)),
  outdir,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  chunkNames: 'db-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  sourcemap: true,
  logLevel: 'warning',
});

/** Inlined into the render command: the pure-JS packages the fill engine imports statically. */
const RENDER_INLINE = new Set([
  '@cantoo/pdf-lib',
  'any-ascii',
  'bidi-js',
  'culori',
  'fflate',
  'html-entities',
  'node-html-better-parser',
]);
/**
 * Packages pdf-lib imports for what a render never does (SVG and XFA parsing, XMP and Factur-X text, CSS
 * colours), whose module code builds tables at start-up (html-entities' named references, culori's colour
 * spaces): pdf-lib's modules get a stand-in that requires the real module on the first call. Each entry
 * is what pdf-lib imports from the package (a new import fails the build: esbuild checks the names).
 */
const LAZY = {
  'node-html-better-parser': [
    'export const parse = (...a) => real().parse(...a);',
    'export const NodeType = new Proxy({}, { get: (_, k) => real().NodeType[k] });',
  ],
  'html-entities': ['export const encode = (...a) => real().encode(...a);'],
  culori: ['export const converter = (mode) => { let f; return (...a) => (f ??= real().converter(mode))(...a); };'],
};
const lazyPackages = {
  name: 'lazy-packages',
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(LAZY).join('|')})$`);
    build.onResolve({ filter }, (args) =>
      args.namespace === 'lazy' || !args.importer.includes(`${path.sep}@cantoo${path.sep}pdf-lib${path.sep}`)
        ? undefined
        : { path: args.path, namespace: 'lazy', pluginData: { resolveDir: args.resolveDir } },
    );
    // pdf-lib's standard-fonts entry is a second copy of the tables pdf-lib's modules already carry (the
    // same data, decompressed again at start-up): ours use pdf-lib's
    const pdfLib = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@cantoo/pdf-lib')), '..');
    build.onResolve({ filter: /^@cantoo\/pdf-lib\/standard-fonts$/ }, () => ({
      path: path.join(pdfLib, 'es/packages/standard-fonts/index.js'),
    }));
    // the real module as pdf-lib's import would find it (culori's ES build, not its CommonJS one)
    build.onResolve({ filter: /^lazy-real:/ }, ({ path: p, resolveDir }) =>
      build.resolve(p.slice('lazy-real:'.length), { kind: 'import-statement', resolveDir }),
    );
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => ({
      contents: [`let m;\nconst real = () => (m ??= require('lazy-real:${args.path}'));`, ...LAZY[args.path]].join(
        '\n',
      ),
      resolveDir: args.pluginData.resolveDir,
      loader: 'js',
    }));
  },
};

// CommonJS, beside tsc's render.js (which stays, unbundled, for runs without this step): an ES module's
// imports of packages are hoisted, so the signing code's node-forge and PKI.js (~80 files) loaded on every
// render; in CommonJS esbuild requires them inside the lazy module that imports them. And only a script
// (not an ES module) can be compiled with a V8 code cache on Node 20 (src/cli/code-cache.ts).
await esbuild.build({
  entryPoints: [path.join(outdir, 'render.js')],
  outfile: path.join(outdir, 'render.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})].filter(
    (d) => !RENDER_INLINE.has(d),
  ),
  // CommonJS has no import.meta: the bundle's own file URL stands in for it
  define: { 'import.meta.url': '__formcast_bundle_url' },
  plugins: [lazyPackages],
  // "use strict" first: a directive after any statement is none, and the modules were strict as ES modules
  banner: { js: '"use strict";\nconst __formcast_bundle_url = require("node:url").pathToFileURL(__filename).href;' },
  sourcemap: true,
  logLevel: 'warning',
});
/**
 * esbuild escapes non-ASCII characters in strings but leaves them in comments and regular expressions. One
 * such character makes V8 hold the whole source as two-byte characters and Node decode it as UTF-8 (~15-40
 * ms at each start of the 2.4 MB render bundle); ASCII is read as Latin-1 (a copy). \uXXXX means the same
 * character in a regular expression (a surrogate pair is one code point under /u) and is plain text in a
 * comment.
 */
function escapeToAscii(file) {
  const bundled = readFileSync(file, 'utf8');
  // (after a backslash, the escape would not stand for the character)
  if (/\\[^\0-\x7f]/.test(bundled)) throw new Error(`${file}: a backslash before a non-ASCII character`);
  writeFileSync(
    file,
    bundled.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
escapeToAscii(path.join(outdir, 'render.cjs'));

// fontkit, for the renders that draw with a fallback font (src/cli/fontkit-bundle.ts): one file run through
// the code cache, where the package is a 560 KB file V8 compiles at each start. brotli's decoder, whose
// dictionary is decoded when its module runs (~37 ms) and which only WOFF2 fonts use, is required on its
// first call, from the installed fontkit's folder (the version fontkit depends on). The entry is fontkit's
// ES module build: its imports of restructure then bind to restructure's ES modules, where the CommonJS
// build wraps restructure's exports in getters 60 times over (~10 ms at each start, and a getter call on
// every use of a type while a font is decoded).
const fontkitMain = fileURLToPath(import.meta.resolve('@cantoo/fontkit')); // its export map: dist/module.mjs
const lazyBrotli = {
  name: 'lazy-brotli',
  setup(build) {
    build.onResolve({ filter: /^brotli\/decompress\.js$/ }, (args) => ({ path: args.path, namespace: 'lazy-brotli' }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-brotli' }, (args) => ({
      contents: [
        'let m;',
        "const fontkit = () => require('node:module').createRequire(require.resolve('@cantoo/fontkit'));",
        `const load = () => (m ??= fontkit()(${JSON.stringify(args.path)}));`,
        'module.exports = (...a) => load()(...a);',
      ].join('\n'),
      loader: 'js',
    }));
  },
};
// fontkit inflates its Unicode tables (unicode-trie) when its module runs, and WOFF tables when a WOFF font
// is read, with fflate: JavaScript that has not been optimised yet in a one-shot process, ~20-30 ms of the
// module's start. Node's zlib does the same inflate natively; only what fontkit imports is given.
const nativeInflate = {
  name: 'native-inflate',
  setup(build) {
    build.onResolve({ filter: /^fflate$/ }, (args) =>
      args.importer === fontkitMain ? { path: 'fflate', namespace: 'native-inflate' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'native-inflate' }, () => ({
      contents: [
        "import { inflateRawSync, inflateSync as zlibInflateSync } from 'node:zlib';",
        "/** fflate's answer: the given `out`, filled, else the inflated bytes. */",
        'const into = (bytes, opts) => {',
        '  if (!opts?.out) return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);',
        '  opts.out.set(bytes.subarray(0, opts.out.length));',
        '  return opts.out;',
        '};',
        'export const inflateSync = (data, opts) => into(inflateRawSync(data), opts);',
        'export const unzlibSync = (data, opts) => into(zlibInflateSync(data), opts);',
      ].join('\n'),
      loader: 'js',
    }));
  },
};
await esbuild.build({
  entryPoints: [fontkitMain],
  outfile: path.join(outdir, 'fontkit.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  plugins: [lazyBrotli, nativeInflate],
  external: ['@cantoo/fontkit'], // only its folder is asked for (require.resolve), to find brotli
  sourcemap: true,
  logLevel: 'warning',
});
escapeToAscii(path.join(outdir, 'fontkit.cjs'));
