// A CommonJS bundle (dist/cli/render.cjs) compiled with a V8 code cache: a one-shot command spends a large
// part of its life compiling the 2.4 MB bundle, and every run compiles the same functions. The first run
// writes what V8 compiled (after the command ran, so the functions it called are in it); later runs skip
// compiling them. Node 22's module.enableCompileCache() does the same for modules, but Node 20 has only
// this (vm.Script's cachedData), which works on every version, so there is one path.
import { isAscii } from 'node:buffer';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

/** Our header before V8's data: a tag and the SHA-256 of the data (V8 checks its own header, not its payload). */
const MAGIC = Buffer.from('FCV8');
const HEADER_BYTES = MAGIC.length + 32;

export interface CachedBundle<T> {
  exports: T;
  /** Whether V8 took this run's code from the cache. */
  cacheUsed: boolean;
  /**
   * Writes the code cache when this run had none, or when V8's flags changed since the load (call after
   * the work, so it holds what ran); never throws.
   */
  save(): void;
}

/**
 * The folder for the cache, created for this user alone: $XDG_CACHE_HOME/formcast, else ~/.cache/formcast,
 * else formcast-<uid> in the temp folder. A folder another user owns or may write to is never used (a cache
 * file is code this process runs). Undefined when none can be used: the command then runs without a cache.
 */
export function codeCacheFolder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : undefined;
  const home = homeOrUndefined();
  const candidates = [
    xdg ? path.join(xdg, 'formcast') : home ? path.join(home, '.cache', 'formcast') : undefined,
    path.join(tmpdir(), `formcast-${process.getuid?.() ?? 'user'}`),
  ];
  for (const dir of candidates) if (dir && ownFolder(dir)) return dir;
  return undefined;
}

function homeOrUndefined(): string | undefined {
  try {
    return homedir() || undefined;
  } catch {
    return undefined;
  }
}

/** Creates `dir` (mode 0700) if missing; true when it is a folder of this user that nobody else may write to. */
function ownFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    const uid = process.getuid?.();
    return st.isDirectory() && (uid === undefined || st.uid === uid) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

const hash = (...parts: (string | Buffer)[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 24);
};

/**
 * The cache file for this bundle (its place, its bytes) on this node binary with these flags: V8 refuses
 * data made by another version or with other flags, and a file per combination keeps runs with different
 * flags, or two installed copies, from overwriting each other's cache in turns.
 */
function cacheFile(folder: string, bundle: string, source: Buffer): CacheTarget {
  const place = `${path.basename(bundle)}-${hash(path.resolve(bundle))}-`;
  const build = `${place}${hash(source)}-`;
  return { file: path.join(folder, `${build}${runtimeKey()}.v8cache`), place, build };
}

/**
 * The node binary and V8's flags now: cachedDataVersionTag changes with flags set at run time (which
 * execArgv does not show), as a one-shot render's script sandbox sets one for a while.
 */
function runtimeKey(): string {
  const runtime = [process.version, process.arch, process.versions.v8, String(v8.cachedDataVersionTag())];
  return hash(...runtime, process.execArgv.join(' '), process.env.NODE_OPTIONS ?? '');
}

/** `place`, `build`: the file names of caches of this bundle's file, and of its current bytes, start with them. */
interface CacheTarget {
  file: string;
  place: string;
  build: string;
}

/** The V8 data in `file` if it is whole and ours (its checksum matches), else undefined. */
function readCache(file: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const data = bytes.subarray(HEADER_BYTES);
  const sum = createHash('sha256').update(data).digest();
  return sum.equals(bytes.subarray(MAGIC.length, HEADER_BYTES)) ? data : undefined;
}

/**
 * Written under a name of its own, then renamed: a concurrent run reads the old file or the new, never half.
 * Then the caches of this bundle's earlier builds (same place, other bytes) go: they are of no more use.
 */
function writeCache(target: CacheTarget, data: Buffer): void {
  const { file, place, build } = target;
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const sum = createHash('sha256').update(data).digest();
    writeFileSync(tmp, Buffer.concat([MAGIC, sum, data]), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
  } catch {
    unlinkQuietly(tmp);
    return;
  }
  const dir = path.dirname(file);
  for (const name of readdirSafe(dir))
    if (name.startsWith(place) && !name.startsWith(build) && name.endsWith('.v8cache'))
      unlinkQuietly(path.join(dir, name));
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // absent, or another run removed it first
  }
}

/**
 * Runs the CommonJS file `bundle` as Node's loader would (its own module, require relative to it) and
 * returns its exports. `folder`: where the code cache lives (undefined: no cache).
 */
export function loadBundle<T>(bundle: string, folder: string | undefined = codeCacheFolder()): CachedBundle<T> {
  const bytes = readFileSync(bundle);
  // ASCII (the build escapes the rest) is read as Latin-1, a copy; UTF-8 decoding of 2.4 MB is not free
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
  const target = folder ? cacheFile(folder, bundle, bytes) : undefined;
  const cachedData = target ? readCache(target.file) : undefined;
  // Node's own CommonJS wrapper, on the first line so that line numbers (and the source map) still match
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
    // the bundle's import() calls (pdf.js, only off the render path) go through Node's usual loader
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const cacheUsed = cachedData !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as T };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle));
  return {
    exports: module.exports,
    cacheUsed,
    save() {
      if (!target) return;
      // V8's data records the flags it is made under: with other flags than the load's (set meanwhile),
      // it goes in the file of those flags, which a load under them will use
      const file = path.join(path.dirname(target.file), `${target.build}${runtimeKey()}.v8cache`);
      if (cacheUsed && file === target.file) return;
      try {
        writeCache({ ...target, file }, script.createCachedData());
      } catch {
        // a cache is an optimisation: a failure to make one is not the command's
      }
    },
  };
}
