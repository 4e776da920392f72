// With idleMs (render workers), the sandbox's thread ends once no session has run for that long, and the
// next session starts a fresh one; without it (the CLI, the in-process engine) the thread stays.
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import { context, steps } from '../helpers/sandbox-session.js';
const sends = (o: { messages: { type: string }[] }) => o.messages.filter((m) => m.type === 'send').length;

const sandboxes: ScriptSandbox[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(sandboxes.splice(0).map((s) => s.close()));
});

describe('the sandbox thread when idle', () => {
  it('ends the thread after idleMs without a session, and the next session runs on a new one', async () => {
    const sandbox = new ScriptSandbox({ idleMs: 50 });
    sandboxes.push(sandbox);
    const first = await sandbox.run(context, steps);
    expect(first.ended).toBe('done');
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    await vi.waitFor(() => expect(terminate).toHaveBeenCalledTimes(1), { timeout: 10_000, interval: 20 });
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    const again = await sandbox.run(context, steps);
    expect(again.ended).toBe('done');
    expect(sends(again)).toBe(sends(first));
    // a fresh thread has no context for the form: it asks for the data again (a second post)
    expect(post).toHaveBeenCalledTimes(2);
  });

  it('keeps the thread while sessions follow each other', async () => {
    const sandbox = new ScriptSandbox({ idleMs: 60_000 });
    sandboxes.push(sandbox);
    expect((await sandbox.run(context, steps)).ended).toBe('done');
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    for (let i = 0; i < 3; i++) expect((await sandbox.run(context, steps)).ended).toBe('done');
    expect(terminate).not.toHaveBeenCalled();
    expect(post).toHaveBeenCalledTimes(3); // the same thread: its context for the form is reused
  });

  it('keeps the thread for good without idleMs', async () => {
    const sandbox = new ScriptSandbox();
    sandboxes.push(sandbox);
    expect((await sandbox.run(context, steps)).ended).toBe('done');
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    await new Promise((r) => setTimeout(r, 200));
    expect(terminate).not.toHaveBeenCalled();
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    expect((await sandbox.run(context, steps)).ended).toBe('done');
    expect(post).toHaveBeenCalledTimes(1);
  });
});
