// A process that ran form scripts and never closed its sandbox still exits when its work is done: the
// sandbox's thread is unref'd, and nothing the parent holds of it (its stdout, once read, did) keeps the
// process alive. Before, `npm run bench` and any in-process caller hung after their last render.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

const run = promisify(execFile);

describe('a process using the script sandbox', () => {
  it('exits after a session without closing the sandbox', { timeout: 120_000 }, async () => {
    const src = (f: string) => JSON.stringify(path.join(repoRoot, 'src/pdf/scripts', f));
    const body = `
const { ScriptSandbox } = await import(${src('sandbox.ts')});
const { DOC_CALCULATE, planSessions, sessionContext } = await import(${src('session-plan.ts')});
const text = (name, actions = {}) => ({ name, kind: 'text', value: '', actions, readOnly: false });
const plan = planSessions({
  fields: [text('a'), text('t', { Calculate: 'event.value = 2 * AFMakeNumber(this.getField("a").value);' })],
  calculationOrder: ['t'],
  documentScripts: [],
});
const outcome = await new ScriptSandbox().run(sessionContext(plan, new Map()), [{ id: 'doc', name: DOC_CALCULATE }]);
console.log(outcome.ended);`;
    // the child's own deadline: a hang is a failure with a reason, not the test's timeout
    const child = run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', body], {
      cwd: repoRoot,
      timeout: 60_000,
    });
    const { stdout } = await child;
    expect(stdout.trim().split('\n').pop()).toBe('done');
  });
});
