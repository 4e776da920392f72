// No Docker engine runs here: this reproduces the Dockerfile's build stage instead. Its COPY lines copy
// from the repository into an empty folder (as the build context would, .dockerignore applied), then
// its build RUN line runs there with the repository's installed node_modules standing in for `npm ci`.
// A file the build needs and no COPY brings in turns this red. The runtime stage's own COPY sources and
// every file compose.yaml names must exist too.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/corpus.js';

const run = promisify(execFile);

interface Stage {
  name: string;
  copies: { from?: string; sources: string[]; dest: string }[];
  runs: string[];
}

/** The Dockerfile's stages: their COPY (with --from) and RUN lines, continuation lines joined. */
function stages(text: string): Stage[] {
  const out: Stage[] = [];
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    if (line.startsWith('#') || line === '') continue;
    const [instruction, ...rest] = line.split(/\s+/);
    if (instruction === 'FROM') out.push({ name: rest[2] ?? `stage ${out.length}`, copies: [], runs: [] });
    const stage = out.at(-1);
    if (!stage) continue;
    if (instruction === 'COPY') {
      const from = rest.find((a) => a.startsWith('--from='))?.slice('--from='.length);
      const args = rest.filter((a) => !a.startsWith('--'));
      stage.copies.push({ from, sources: args.slice(0, -1), dest: args.at(-1)! });
    }
    if (instruction === 'RUN') stage.runs.push(rest.join(' '));
  }
  return out;
}

const ignored = existsSync(path.join(repoRoot, '.dockerignore'))
  ? readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
  : [];
/** Whether .dockerignore keeps a repository path out of the build context (its plain and ** patterns). */
function isIgnored(relative: string): boolean {
  return ignored.some((pattern) => {
    const p = pattern.replace(/^\*\*\//, '');
    return relative === p || relative.startsWith(`${p}/`) || (pattern.startsWith('**/') && relative.includes(`/${p}`));
  });
}

const dockerfile = stages(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));
const work = mkdtempSync(path.join(tmpdir(), 'formcast-docker-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the Dockerfile', () => {
  it('copies from the context only files that exist and are not ignored', () => {
    for (const stage of dockerfile)
      for (const copy of stage.copies.filter((c) => !c.from))
        for (const source of copy.sources) {
          expect(existsSync(path.join(repoRoot, source)), `${stage.name}: COPY ${source}`).toBe(true);
          expect(isIgnored(source), `${stage.name}: COPY ${source} is in .dockerignore`).toBe(false);
        }
  });

  it("builds in a folder holding only what the build stage's COPY lines bring in", { timeout: 600_000 }, async () => {
    const build = dockerfile[0];
    const app = path.join(work, 'app');
    for (const copy of build.copies) {
      for (const source of copy.sources) {
        const target = copy.dest.endsWith('/')
          ? path.join(app, copy.dest, copy.dest === './' ? source : path.basename(source))
          : path.join(app, copy.dest);
        cpSync(path.join(repoRoot, source), target, {
          recursive: true,
          filter: (file) => !isIgnored(path.relative(repoRoot, file)),
        });
      }
    }
    // `npm ci` (the first RUN) installs what the lockfile names: the repository's install stands in for it
    expect(build.runs[0]).toMatch(/^npm ci\b/);
    symlinkSync(path.join(repoRoot, 'node_modules'), path.join(app, 'node_modules'), 'dir');
    const buildLine = build.runs.find((r) => r.includes('npm run build'));
    expect(buildLine, 'a RUN line builds').toBeTruthy();
    // the build itself, as the RUN line starts it (pruning is npm's own business)
    await run('npm', ['run', 'build'], { cwd: app, env: { ...process.env, NODE_ENV: 'production' } });
    // what the runtime stage copies from the build stage is there
    for (const copy of dockerfile[1].copies.filter((c) => c.from))
      for (const source of copy.sources)
        expect(existsSync(path.join(app, path.relative('/app', source))), `COPY --from ${source}`).toBe(true);
    expect(existsSync(path.join(app, 'dist/main.js'))).toBe(true);
    expect(existsSync(path.join(app, 'dist/web/index.html'))).toBe(true);
    const { stdout } = await run(process.execPath, [path.join(app, 'dist/main.js'), '--version'], { cwd: app });
    expect(stdout.trim()).toBe(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version);
  });
});

describe('compose.yaml', () => {
  it('names only files and build contexts that exist', () => {
    const text = readFileSync(path.join(repoRoot, 'compose.yaml'), 'utf8');
    const named = [
      ...[...text.matchAll(/^\s*build:\s*(\S+)\s*$/gm)].map((m) => m[1]),
      ...[...text.matchAll(/^\s*(?:context|dockerfile|env_file|file):\s*(\S+)\s*$/gm)].map((m) => m[1]),
      // bind mounts: "./path:/in/container"
      ...[...text.matchAll(/["'\s[](\.{1,2}\/[^:"'\s,\]]*):/g)].map((m) => m[1]),
    ];
    expect(named.length).toBeGreaterThan(0);
    for (const file of named) expect(existsSync(path.join(repoRoot, file)), file).toBe(true);
    // a build context of "." builds with the Dockerfile at its root
    if (named.includes('.')) expect(existsSync(path.join(repoRoot, 'Dockerfile'))).toBe(true);
  });
});
