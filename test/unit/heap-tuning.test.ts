import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

const run = promisify(execFile);

describe('tuneServerHeap', () => {
  // A V8 that does not know a flag set at run time only prints "unrecognized flag" on stderr and goes on:
  // this catches a Node whose V8 dropped it (the test runs on whichever Node runs the suite).
  it('sets a V8 flag the running Node knows, without a word on stderr', async () => {
    const module = pathToFileURL(path.join(repoRoot, 'src/heap-tuning.ts')).href;
    const { stdout, stderr } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { tuneServerHeap } from ${JSON.stringify(module)}; tuneServerHeap(); console.log('tuned');`,
      ],
      { cwd: repoRoot },
    );
    expect(stdout.trim()).toBe('tuned');
    expect(stderr).toBe('');
  });
});
