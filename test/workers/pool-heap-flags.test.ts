// Render workers start with their own heap flags (worker-flags.ts): the memory budget as V8's old
// generation and the young generation the pool was given, 16 MB per semi-space unless configured.
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/workers/pool.js';

describe("render workers' heap flags", () => {
  const pools: WorkerPool[] = [];
  const pool = (semiSpaceMb?: number) => {
    const p = new WorkerPool({
      size: 1,
      timeoutMs: 30_000,
      maxMemoryMb: 300,
      maxQueue: 4,
      testJobs: true,
      semiSpaceMb,
    });
    pools.push(p);
    return p;
  };
  afterAll(() => Promise.all(pools.map((p) => p.close())));

  it("start a worker with V8's 16 MB semi-space by default", async () => {
    const argv = await pool().run<string[]>({ kind: 'test:exec-argv', args: [] });
    expect(argv).toEqual(['--max-old-space-size=300', '--max-semi-space-size=16']);
  });

  it('start a worker with the semi-space it is given (RENDER_SEMI_SPACE_MB)', async () => {
    const argv = await pool(2).run<string[]>({ kind: 'test:exec-argv', args: [] });
    expect(argv).toContain('--max-semi-space-size=2');
  });
});
