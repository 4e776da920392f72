// The Node flags a render worker starts with, in one place: the pool spawns workers with them, the
// configuration takes its default from here, and the bench times the engine in a process started alike.

/**
 * Young generation of a worker's heap by default, MiB per semi-space: V8's own maximum on 64-bit Node 20,
 * written out so a newer V8's different default does not change it. V8 grows the young generation only
 * when renders need it: small forms' workers stay as with 2 MB, the largest forms fill up to a third
 * faster for ~30 MB (docs/decisions.md, "The render workers' young generation").
 */
export const RENDER_SEMI_SPACE_MB = 16;

/** A render worker's V8 heap: its old generation's budget and its young generation's semi-space, MiB. */
export function renderWorkerExecArgv(maxMemoryMb: number, semiSpaceMb: number): string[] {
  return [`--max-old-space-size=${maxMemoryMb}`, `--max-semi-space-size=${semiSpaceMb}`];
}
