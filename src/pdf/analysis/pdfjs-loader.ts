// pdf.js for Node (its legacy build) without the slowdown it brings. The build carries core-js, which on
// import replaces built-ins Node already has (Array.prototype.push, JSON.parse, Function.prototype.toString)
// with polyfills for the whole process: once a worker had analysed one form, every later analysis and
// render in it ran 15-40 % slower (docs/performance.md). Importing pdf.js here puts those built-ins back;
// what it adds that Node 20 lacks (Promise.withResolvers, Set methods, ArrayBuffer.transfer...) stays,
// since pdf.js uses it.

type PdfjsModule = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

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
  const [lib] = await Promise.all([
    import('pdfjs-dist/legacy/build/pdf.mjs'),
    // sets globalThis.pdfjsWorker, which the API's in-thread ("fake") worker uses instead of importing it
    import(WORKER_MODULE),
  ]);
  restoreBuiltins();
  return lib;
}
