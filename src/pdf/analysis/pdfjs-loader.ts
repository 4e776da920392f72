// pdf.js for Node (its legacy build) without the slowdown it brings. The build carries core-js, which on
// import replaces built-ins Node already has (Array.prototype.push, JSON.parse, Function.prototype.toString)
// with polyfills for the whole process: once a worker had analysed one form, every later analysis and
// render in it ran 15-40 % slower (docs/performance.md). Importing pdf.js here puts those built-ins back;
// what it adds that Node 20 lacks (Promise.withResolvers, Set methods, ArrayBuffer.transfer...) stays,
// since pdf.js uses it. pdf.js is also kept from loading `@napi-rs/canvas` (see withoutCanvas).

import { createRequire } from 'node:module';
import path from 'node:path';

type PdfjsModule = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
export type PdfjsLoadingTask = ReturnType<PdfjsModule['getDocument']>;

/** pdf.js's worker code (no type declarations: only its side effect, globalThis.pdfjsWorker, is wanted). */
const WORKER_MODULE = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

/** Holders whose existing properties a polyfill may overwrite (core-js patches prototypes and statics). */
const HOLDERS: object[] = [
  globalThis,
  Object,
  Object.prototype,
  Function.prototype,
  Array,
  Array.prototype,
  Object.getPrototypeOf(Uint8Array.prototype) as object,
  ArrayBuffer.prototype,
  String,
  String.prototype,
  Number,
  Math,
  JSON,
  Promise,
  Map,
  Map.prototype,
  Set.prototype,
  RegExp.prototype,
  Reflect,
];

/**
 * The built-ins as this module found them, read when it loads (before pdf.js can be imported, since only
 * this module imports it). Frozen data, never written: every load compares against the same originals,
 * so two analyses loading pdf.js at once cannot take a polyfill for an original.
 */
const ORIGINALS: ReadonlyArray<readonly [object, ReadonlyMap<PropertyKey, PropertyDescriptor>]> = HOLDERS.map(
  (h) => [h, new Map(Reflect.ownKeys(h).map((k) => [k, Reflect.getOwnPropertyDescriptor(h, k)!]))] as const,
);

const same = (a: PropertyDescriptor, b: PropertyDescriptor) =>
  Object.is(a.value, b.value) && a.get === b.get && a.set === b.set;

/** Puts back every original property a polyfill replaced. */
function restoreBuiltins(): void {
  for (const [holder, props] of ORIGINALS) {
    for (const [key, original] of props) {
      const now = Reflect.getOwnPropertyDescriptor(holder, key);
      if (!now || same(now, original) || !now.configurable) continue;
      Reflect.defineProperty(holder, key, original);
    }
  }
}

/**
 * pdf.js's API with its worker code already loaded (getDocument would otherwise import the worker module
 * later, out of reach, and patch the built-ins again), the replaced built-ins put back.
 */
export async function loadPdfjs(): Promise<PdfjsModule> {
  const [lib] = await withoutCanvas(() =>
    Promise.all([
      import('pdfjs-dist/legacy/build/pdf.mjs'),
      // sets globalThis.pdfjsWorker, which the API's in-thread ("fake") worker uses instead of importing it
      import(WORKER_MODULE),
    ]),
  );
  restoreBuiltins();
  return lib;
}

/** The native canvas package pdf.js requires on import (rendering pages, which the engine never does). */
const CANVAS_PACKAGE = '@napi-rs/canvas';
/** Marks the getBuiltinModule stand-in, so overlapping loads install it once. */
const STAND_IN = Symbol('formcast.withoutCanvas');

/** Stands for DOMMatrix, ImageData and Path2D, which only pdf.js's page rendering constructs. */
class NoCanvas {
  constructor() {
    throw new Error('pdf.js page rendering is not available in formcast');
  }
}
const NO_CANVAS = Object.freeze({ DOMMatrix: NoCanvas, ImageData: NoCanvas, Path2D: NoCanvas });
const CANVAS_GLOBALS = Object.keys(NO_CANVAS);

type GetBuiltinModule = (id: string) => unknown;

/**
 * Runs `load` (pdf.js's import) with `require('@napi-rs/canvas')` answering inert stand-ins. On import pdf.js
 * requires that native Skia build to polyfill DOMMatrix, ImageData and Path2D for drawing pages; reading
 * text never uses them, and the package cost every worker that analysed a form ~22 MB RSS
 * (docs/performance.md, Session 10). pdf.js reaches `require` only through `process.getBuiltinModule
 * ('module').createRequire`, so that is what is wrapped, for the import only; the stand-ins it installs
 * as globals are removed again, so nothing of them outlives the import (and pdf.js prints no warning).
 */
async function withoutCanvas<T>(load: () => Promise<T>): Promise<T> {
  const proc = process as unknown as { getBuiltinModule?: GetBuiltinModule & { [STAND_IN]?: true } };
  const original = proc.getBuiltinModule;
  if (!original || original[STAND_IN]) return load(); // an overlapping load has installed it already
  const hadGlobal = new Set(CANVAS_GLOBALS.filter((k) => k in globalThis));
  const standIn = Object.assign(
    (id: string) => (id === 'module' || id === 'node:module' ? moduleWithoutCanvas(original(id)) : original(id)),
    {
      [STAND_IN]: true as const,
    },
  );
  proc.getBuiltinModule = standIn;
  try {
    return await load();
  } finally {
    proc.getBuiltinModule = original;
    const g = globalThis as Record<string, unknown>;
    for (const k of CANVAS_GLOBALS) if (!hadGlobal.has(k) && g[k] === NoCanvas) delete g[k];
  }
}

/** node:module whose createRequire gives a require that answers the stand-ins for the canvas package. */
function moduleWithoutCanvas(mod: unknown): unknown {
  const m = mod as typeof import('node:module');
  return {
    ...m,
    createRequire(from: string | URL) {
      const require = m.createRequire(from);
      return Object.assign((id: string) => (id === CANVAS_PACKAGE ? NO_CANVAS : require(id)), require);
    },
  };
}

/** A folder shipped inside pdfjs-dist, as pdf.js's Node readers want it (a path ending in a separator). */
function pdfjsAsset(folder: string): string {
  const root = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  return path.join(root, folder) + path.sep;
}

/**
 * Opens `bytes` with pdf.js as the engine reads documents: no eval, no font faces, no system fonts, no
 * canvas, going on past errors. `cMaps`: with pdf.js's character maps and standard font data, which CJK
 * text needs (without them a Japanese form reads as having no text).
 */
export async function openPdfjs(bytes: Uint8Array, opts: { cMaps?: boolean } = {}): Promise<PdfjsLoadingTask> {
  const { getDocument } = await loadPdfjs();
  // pdf.js takes ownership of (detaches) the buffer it is given: pass a copy.
  return getDocument({
    data: new Uint8Array(bytes),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    stopAtErrors: false,
    ...(opts.cMaps
      ? { cMapUrl: pdfjsAsset('cmaps'), cMapPacked: true, standardFontDataUrl: pdfjsAsset('standard_fonts') }
      : {}),
  });
}
