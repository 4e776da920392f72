#!/usr/bin/env node
// The floors of src/ only point down: this reads every import of src/ (static, dynamic, type-only and
// re-exports) and reports each one that breaks a rule below, and every import cycle.
// Run by `npm run lint`; test/unit/check-layers.test.ts proves it fails on a back-reference.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `from`: files whose path starts with it; `allow`: the only places they may import (besides packages and
 * node:), or `deny`: places they must not import. Paths are relative to the project root.
 */
export const RULES = [
  {
    from: 'src/pdf/',
    allow: ['src/pdf/', 'src/lib/'],
    why: 'the engine is pure: bytes and plain objects in and out, no HTTP, accounts or storage',
  },
  {
    from: 'src/pdf/fonts/',
    deny: ['src/pdf/appearance/', 'src/pdf/fill/', 'src/pdf/analysis/', 'src/pdf/merge/', 'src/pdf/writer/'],
    why: 'fonts measure and shape text; drawing and filling are built on them',
  },
  {
    from: 'src/pdf/appearance/',
    deny: ['src/pdf/fill/', 'src/pdf/analysis/'],
    why: 'appearance/ draws from plain arguments; the fillers in fill/ decide what to draw',
  },
  {
    from: 'src/pdf/analysis/',
    deny: ['src/pdf/fill/', 'src/pdf/appearance/', 'src/pdf/fonts/', 'src/pdf/merge/', 'src/pdf/writer/'],
    why: 'analysis reads a form; it never draws or writes one',
  },
  { from: 'src/lib/', allow: ['src/lib/'], why: 'small pure helpers that everything may use' },
  {
    from: 'src/ports/',
    deny: ['src/adapters/', 'src/modules/', 'src/http/', 'src/workers/', 'src/bootstrap.ts', 'src/app.ts'],
    why: 'a port names what the modules call, never how it is done',
  },
  {
    from: 'src/deps.ts',
    deny: ['src/modules/', 'src/http/', 'src/workers/', 'src/app.ts', 'src/bootstrap.ts'],
    why: 'Deps is below every use case: it names ports and adapters, not modules',
  },
  {
    from: 'src/http/',
    deny: ['src/modules/', 'src/workers/', 'src/bootstrap.ts', 'src/app.ts'],
    why: 'cross-cutting plugins: the modules use them, not the other way round',
  },
  {
    from: 'src/adapters/',
    deny: ['src/modules/', 'src/http/', 'src/app.ts', 'src/bootstrap.ts'],
    why: 'adapters implement ports; use cases are above them',
  },
  {
    from: 'src/modules/',
    deny: ['src/app.ts', 'src/bootstrap.ts', 'src/cli/', 'src/workers/'],
    why: 'use cases are reached through Deps, never through the composition root or the worker processes',
  },
];

/** Trees in which no file may import itself back, directly or around a circle of imports. */
export const ACYCLIC = ['src/'];

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

/** The project-relative file an import names, or undefined for a package or node: module. */
function resolve(root, fromFile, spec) {
  if (!spec.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(fromFile), spec);
  for (const candidate of [target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts'), target, `${target}.ts`]) {
    try {
      if (statSync(candidate).isFile()) return path.relative(root, candidate).split(path.sep).join('/');
    } catch {}
  }
  return path.relative(root, target).split(path.sep).join('/');
}

/** Every project-relative import of every file under `root`/src: Map<file, Set<file>>. */
export function importGraph(root) {
  const graph = new Map();
  for (const file of sourceFiles(path.join(root, 'src'))) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    const targets = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolve(root, file, m[1] ?? m[2]);
      if (target) targets.add(target);
    }
    graph.set(rel, targets);
  }
  return graph;
}

function breaks(rule, target) {
  if (rule.allow) return !rule.allow.some((p) => target.startsWith(p));
  return rule.deny.some((p) => target.startsWith(p));
}

/** Cycles among the files under `prefix`, each as the list of files around it. */
function cycles(graph, prefix) {
  const found = [];
  const state = new Map(); // 1 on the current path, 2 done
  const stack = [];
  const visit = (file) => {
    state.set(file, 1);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!next.startsWith(prefix) || !graph.has(next)) continue;
      if (state.get(next) === 1) found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 2);
  };
  for (const file of [...graph.keys()].filter((f) => f.startsWith(prefix)).sort()) if (!state.has(file)) visit(file);
  return found;
}

/** Every broken rule and cycle under `root`, as readable lines (empty when the floors hold). */
export function checkLayers(root, rules = RULES, acyclic = ACYCLIC) {
  const graph = importGraph(root);
  const problems = [];
  for (const [file, targets] of graph) {
    for (const rule of rules.filter((r) => file.startsWith(r.from))) {
      for (const target of targets)
        if (breaks(rule, target)) problems.push(`${file} imports ${target}: ${rule.from} must not (${rule.why})`);
    }
  }
  // route files only translate HTTP: what two of them share (schemas, use cases) lives in a module file
  for (const [file, targets] of graph) {
    if (!/routes\.ts$/.test(file)) continue;
    for (const target of targets)
      if (/routes\.ts$/.test(target)) problems.push(`${file} imports ${target}: a route file never imports another`);
  }
  for (const prefix of acyclic)
    for (const circle of cycles(graph, prefix)) problems.push(`import cycle in ${prefix}: ${circle.join(' -> ')}`);
  return problems;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const problems = checkLayers(root);
  for (const p of problems) console.error(p);
  if (problems.length) {
    console.error(`\n${problems.length} import(s) break the floors of src/ (scripts/check-layers.mjs)`);
    process.exit(1);
  }
  console.log('layers: every import of src/ points down');
}
