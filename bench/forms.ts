// The corpus forms a bench run covers: every PDF of the corpus, or those BENCH_FORMS names. A name that is
// not in the corpus stops the run (a misspelt form must not leave a table silently shorter).
import { readdirSync } from 'node:fs';
import path from 'node:path';

export function corpusForms(corpus: string, only: string | undefined): string[] {
  const dir = path.join(corpus, 'pdfs');
  const all = readdirSync(dir).filter((f) => f.endsWith('.pdf'));
  const names = only
    ? only
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : all;
  const unknown = names.filter((n) => !all.includes(n));
  if (unknown.length) throw new Error(`BENCH_FORMS: not in ${dir}: ${unknown.join(', ')}`);
  return [...names].sort().map((f) => path.join(dir, f));
}
