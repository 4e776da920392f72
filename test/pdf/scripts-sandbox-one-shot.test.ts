// keepContexts: false (the one-shot render of the CLI): the thread keeps no pristine context, so a session
// of a form it has seen makes the context again from the form's data, with the same outcome; a kept context
// is reused instead.
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import { context, steps } from '../helpers/sandbox-session.js';

const sent = (o: { messages: { type: string }[] }) => JSON.stringify(o.messages.filter((m) => m.type === 'send'));

const sandboxes: ScriptSandbox[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(sandboxes.splice(0).map((s) => s.close()));
});

describe('a sandbox that keeps no contexts', () => {
  it('makes the form context again for every session, with the same outcome', async () => {
    const sandbox = new ScriptSandbox({ keepContexts: false });
    sandboxes.push(sandbox);
    const first = await sandbox.run(context, steps);
    expect(first.ended).toBe('done');
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    const again = await sandbox.run(context, steps);
    expect(again.ended).toBe('done');
    expect(sent(again)).toBe(sent(first));
    expect(sent(first)).not.toBe('[]');
    // no pristine context kept: the thread asks for the form's data again (a second post)
    expect(post).toHaveBeenCalledTimes(2);
  });

  it('reuses the kept context by default', async () => {
    const sandbox = new ScriptSandbox();
    sandboxes.push(sandbox);
    const first = await sandbox.run(context, steps);
    const post = vi.spyOn(Worker.prototype, 'postMessage');
    const again = await sandbox.run(context, steps);
    expect(sent(again)).toBe(sent(first));
    expect(post).toHaveBeenCalledTimes(1);
  });
});
