// keepContexts: false (the one-shot render of the CLI): the thread keeps no pristine context, so a session
// of a form it has seen makes the context again from the form's data, with the same outcome; a kept context
// is reused instead.
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptSandbox } from '../../src/pdf/scripts/sandbox.js';
import { DOC_CALCULATE, planSessions, sessionContext } from '../../src/pdf/scripts/session-plan.js';
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

describe("a baseline-only sandbox (the CLI's)", () => {
  it("runs its sessions under --liftoff-only and puts V8's flags back when it closes", async () => {
    // V8's code cache tag is a hash of its flags: it moves when the thread sets the flag, and must come
    // back, or the CLI's code cache, made after the render, would be refused by the next run
    const before = v8.cachedDataVersionTag();
    const sandbox = new ScriptSandbox({ keepContexts: false, baselineOnly: true });
    sandboxes.push(sandbox);
    const outcome = await sandbox.run(context, steps);
    expect(outcome.ended).toBe('done');
    expect(sent(outcome)).not.toBe('[]');
    expect(v8.cachedDataVersionTag()).not.toBe(before);
    await sandbox.close();
    expect(v8.cachedDataVersionTag()).toBe(before);
    // a later session starts a thread again, under the flag again
    expect((await sandbox.run(context, steps)).ended).toBe('done');
    await sandbox.close();
    expect(v8.cachedDataVersionTag()).toBe(before);
  });

  it('puts the flags back even after a session that ran out of time ended its thread', async () => {
    const loop = sessionContext(
      planSessions({
        fields: [{ name: 't', kind: 'text', value: '', actions: { Calculate: 'while (true) {}' }, readOnly: false }],
        calculationOrder: ['t'],
        documentScripts: [],
      }),
      new Map(),
    );
    const before = v8.cachedDataVersionTag();
    const sandbox = new ScriptSandbox({ keepContexts: false, baselineOnly: true, timeMs: 300 });
    sandboxes.push(sandbox);
    const outcome = await sandbox.run(loop, [{ id: 'doc', name: DOC_CALCULATE }]);
    expect(outcome.ended).toBe('time');
    expect(v8.cachedDataVersionTag()).not.toBe(before);
    await sandbox.close();
    expect(v8.cachedDataVersionTag()).toBe(before);
  });

  it("leaves V8's flags alone by default", async () => {
    const before = v8.cachedDataVersionTag();
    const sandbox = new ScriptSandbox({ keepContexts: false });
    sandboxes.push(sandbox);
    expect((await sandbox.run(context, steps)).ended).toBe('done');
    expect(v8.cachedDataVersionTag()).toBe(before);
  });
});
