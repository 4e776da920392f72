import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/heap-tuning.js';
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

describe('SERVER_NODE_FLAGS', () => {
  // The benches start their servers with SERVER_NODE_FLAGS: they measure the server as deployed only if
  // `npm start` and the image run it with the same flags.
  it("are the flags of `npm start` and of the Dockerfile's CMD", () => {
    const start = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts.start as string;
    const cmd = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8').match(/^CMD (\[.*\])$/m)?.[1];
    expect(cmd, 'the Dockerfile has an exec-form CMD').toBeDefined();
    // every flag between `node` and the script
    const flagsOf = (argv: string[]) => argv.slice(argv.indexOf('node') + 1).filter((a) => a.startsWith('--'));
    const startFlags = flagsOf(start.split(/\s+/));
    const cmdFlags = flagsOf(JSON.parse(cmd!) as string[]);
    expect(startFlags).toEqual([...SERVER_NODE_FLAGS]);
    expect(cmdFlags).toEqual([...SERVER_NODE_FLAGS]);
  });
});
