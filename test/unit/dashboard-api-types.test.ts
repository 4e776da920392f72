import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

const run = promisify(execFile);

// The dashboard's API types (web/src/generated/schema.ts) are generated from openapi/openapi.json by
// `npm run generate:web`, which build:web runs, as the SDK's are; the file is not committed. A file older
// than the document would let `tsc -p web/tsconfig.json` pass against an API that has changed since.
describe('the dashboard API types', () => {
  it('are what openapi-typescript makes of openapi/openapi.json now (run `npm run generate:web` when not)', async () => {
    // the package script itself plus the generator's own --check: the same options, no copy of them here
    const outcome = await run('npm', ['run', '--silent', 'generate:web', '--', '--check'], { cwd: repoRoot }).then(
      () => 'current',
      (err: { stdout: string; stderr: string }) => `stale or missing: ${err.stdout}${err.stderr}`,
    );
    expect(outcome).toBe('current');
  });
});
