// A session goes to the sandbox's thread as soon as it is asked for (sandbox.ts): with a started thread and
// no other session, its steps are posted before run() returns, so a render writes the caller's values while
// the thread runs the scripts; with a session already running, the next one waits its turn.
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import { context, steps } from '../helpers/sandbox-session.js';
const sandbox = new ScriptSandbox();
afterAll(() => sandbox.close());

describe('posting a session to the sandbox thread', () => {
  it('posts the steps before run() returns once the thread has started', async () => {
    expect((await sandbox.run(context, steps)).ended).toBe('done'); // starts the thread and the form's context
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      const running = sandbox.run(context, steps);
      expect(post).toHaveBeenCalledTimes(1);
      expect((await running).ended).toBe('done');
    } finally {
      post.mockRestore();
    }
  });

  it('runs a session asked for while another runs after it, both to the end', async () => {
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      const first = sandbox.run(context, steps);
      const second = sandbox.run(context, steps);
      expect(post).toHaveBeenCalledTimes(1);
      const outcomes = await Promise.all([first, second]);
      expect(outcomes.map((o) => o.ended)).toEqual(['done', 'done']);
      expect(post).toHaveBeenCalledTimes(2);
      const results = outcomes.map((o) => o.messages.filter((m) => m.type === 'send').length);
      expect(results[0]).toBeGreaterThan(0);
      expect(results[1]).toBe(results[0]);
    } finally {
      post.mockRestore();
    }
  });
});
