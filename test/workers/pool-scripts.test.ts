// Form scripts in a real render worker process: the worker's script sandbox (a thread it owns) ends a
// hostile script as a warning on its field, the worker process is never lost, and the next render on the
// same worker (same sandbox, started once) computes. The scripts' warnings and rejections cross the pipe.
import { afterAll, describe, expect, it } from 'vitest';
import { poolEngine } from '../../src/adapters/engine/pool-engine.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { buildCalcForm, fillValues } from '../helpers/calc-forms.js';

const pool = new WorkerPool({ size: 1, timeoutMs: 60_000, maxMemoryMb: 768, maxQueue: 8 });
const engine = poolEngine(pool, {});
afterAll(() => engine.close());

describe('form scripts in a render worker', () => {
  it('an endless loop, a huge allocation and a stack overflow cost a warning each, never the worker', async () => {
    const form = await buildCalcForm({
      fields: [
        { name: 'a' },
        { name: 'loop', C: 'for (;;) {}' },
        { name: 'big', C: 'var s = "x"; while (true) s += s;' },
        { name: 'deep', C: 'function f() { return f() + 1; } event.value = f();' },
        { name: 'age', V: 'AFRange_Validate(true, 0, true, 120);' },
        { name: 'sum', C: 'AFSimple_Calculate("SUM", new Array("a"));' },
      ],
    });
    const r = await engine.fill(
      form.bytes,
      form.analysis,
      { values: fillValues({ a: '5', age: '130' }), flatten: false },
      'hostile',
    );
    expect((r.scriptWarnings ?? []).map((w) => [w.field, w.code]).sort()).toEqual([
      ['big', 'SCRIPT_BUDGET'],
      ['deep', 'SCRIPT_BUDGET'],
      ['loop', 'SCRIPT_BUDGET'],
    ]);
    expect((r.scriptRejections ?? []).map((x) => x.field)).toEqual(['age']);
    const plain = await buildCalcForm({
      fields: [{ name: 'a' }, { name: 'sum', C: 'AFSimple_Calculate("SUM", new Array("a"));' }],
    });
    const next = await engine.fill(
      plain.bytes,
      plain.analysis,
      { values: fillValues({ a: '5' }), flatten: false },
      'plain',
    );
    expect(next.scriptWarnings).toEqual([]);
    const stats = engine.stats();
    expect(stats.lost).toEqual({ timeout: 0, memory: 0, crash: 0 });
    expect(stats.workers).toBe(1);
  });
});
