import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script (run by npm run lint before any build), without type declarations
import { checkLayers } from '../../scripts/check-layers.mjs';

const check = checkLayers as (root: string) => string[];

/** A throwaway project with these files (path -> content). */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'formcast-layers-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  roots.push(root);
  return root;
}
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('the import check of npm run lint', () => {
  it('finds every import of the real src/ pointing down, and no cycle', () => {
    expect(check(path.resolve(import.meta.dirname, '../..'))).toEqual([]);
  });

  it('reports the engine importing a module, and a type-only import of a module into deps.ts', () => {
    const root = tree({
      'src/pdf/fill/fill.ts': "import { x } from '../../modules/renders/y.js';\nexport const f = x;\n",
      'src/modules/renders/y.ts': 'export const x = 1;\n',
      'src/deps.ts': "import type { Plans } from './modules/accounts/plans.js';\nexport type D = Plans;\n",
      'src/modules/accounts/plans.ts': 'export type Plans = string;\n',
    });
    expect(check(root).sort()).toEqual([
      expect.stringContaining('src/deps.ts imports src/modules/accounts/plans.ts'),
      expect.stringContaining('src/pdf/fill/fill.ts imports src/modules/renders/y.ts'),
    ]);
  });

  it('reports http/ reaching into a module or a worker, and ports/ into an adapter, dynamic imports included', () => {
    const root = tree({
      'src/http/auth.ts': "export const load = () => import('../modules/accounts/api-keys.js');\n",
      'src/modules/accounts/api-keys.ts': 'export {};\n',
      'src/ports/clock.ts': "export { systemClock } from '../adapters/clock/system.js';\n",
      'src/adapters/clock/system.ts': 'export const systemClock = 1;\n',
    });
    expect(check(root).sort()).toEqual([
      expect.stringContaining('src/http/auth.ts imports src/modules/accounts/api-keys.ts'),
      expect.stringContaining('src/ports/clock.ts imports src/adapters/clock/system.ts'),
    ]);
  });

  it('reports a route file importing another route file', () => {
    const root = tree({
      'src/modules/batches/routes.ts':
        "import { RenderRequest } from '../renders/routes.js';\nexport const r = RenderRequest;\n",
      'src/modules/renders/routes.ts': 'export const RenderRequest = 1;\n',
    });
    expect(check(root)).toEqual([
      'src/modules/batches/routes.ts imports src/modules/renders/routes.ts: a route file never imports another',
    ]);
  });

  it('reports a cycle of imports, and ignores imports written in comments', () => {
    const root = tree({
      'src/pdf/a.ts':
        "// import { nothing } from '../modules/x.js';\nimport { b } from './b.js';\nexport const a = b;\n",
      'src/pdf/b.ts': "import type { a } from './a.js';\nexport const b: typeof a = 1;\n",
    });
    expect(check(root)).toEqual([
      expect.stringMatching(/^import cycle in src\/: src\/pdf\/a\.ts -> src\/pdf\/b\.ts -> src\/pdf\/a\.ts$/),
    ]);
  });
});
