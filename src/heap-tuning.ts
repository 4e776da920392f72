import v8 from 'node:v8';

/**
 * Growth of the old generation after each full GC, percent of what survived it. V8 otherwise derives a
 * factor from its GC and allocation speeds, up to 4× on a machine with memory to spare (what the server
 * got): with ~30 MB live and fast allocation (requests, JSON, IPC messages) its heap sat at 65-77 MB,
 * mostly garbage (measured before the HTTP overhead work cut what a render allocates). At 10 % (V8 still
 * grows by at least 8 MB) it stays near 45-52 MB, for more full GCs.
 * See docs/decisions.md "Server heap and SQLite page cache".
 */
const HEAP_GROWING_PERCENT = 10;

/**
 * Node's command-line flags for the API server, as `npm start` and the Dockerfile's CMD pass them (a test
 * keeps the three in step; the benches start their server processes with these): a 2 MB young
 * generation, which V8 sizes only when the heap is created, and source maps for stack traces. See
 * docs/decisions.md "Operations".
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--enable-source-maps'];

/**
 * Tunes this process's V8 heap for the API server: `serve` and the bench's server process (not render
 * workers, CLI commands or tests). Set at run time because NODE_OPTIONS does not allow this flag and
 * `npx formcast serve` passes no node flags; V8 reads it at every GC. Node 20's V8 and V8's current
 * source have it; a V8 without it prints "unrecognized flag" and goes on, it never throws. The young
 * generation can only be sized on the command line (`--max-semi-space-size`: package.json, Dockerfile).
 */
export function tuneServerHeap(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
