// The process the bench times our engine in: a child started with the render workers' flags (the young
// generation decides how fast the largest forms fill: docs/performance.md, "Session 12: the young
// generation"), sized as the server would size them from RENDER_MEMORY_MB and RENDER_SEMI_SPACE_MB.
import { spawn } from 'node:child_process';
import { RENDER_SEMI_SPACE_MB, renderWorkerExecArgv } from '../src/workers/worker-flags.js';
import { forkRpc, type RpcChild } from './child-rpc.js';
import type { EngineCalls } from './engine-child.js';

export type EngineChild = RpcChild<EngineCalls>;

/** The worker flags the server would start its render workers with, from the same settings. */
export function workerFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  const memoryMb = Number(env.RENDER_MEMORY_MB ?? 512);
  const semiSpaceMb = Number(env.RENDER_SEMI_SPACE_MB ?? RENDER_SEMI_SPACE_MB);
  return renderWorkerExecArgv(memoryMb, semiSpaceMb);
}

export function startEngineChild(): Promise<EngineChild> {
  return forkRpc<EngineCalls>('engine-child', workerFlags());
}

/** Set in a bench process re-run with the workers' flags (rerunWithWorkerFlags). */
const RERUN = 'BENCH_WORKER_FLAGS';

/**
 * For the modes that time only our engine and peers in the bench's own process (no server in it): this
 * process again with the workers' heap flags instead of its own; resolves to its exit code, or to
 * undefined when this process already is that one.
 */
export function rerunWithWorkerFlags(): Promise<number> | undefined {
  if (process.env[RERUN] === '1') return undefined;
  const own = process.execArgv.filter((f) => !/^--max-(old|semi)-space-size=/.test(f));
  const child = spawn(process.execPath, [...own, ...workerFlags(), ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, [RERUN]: '1' },
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}
