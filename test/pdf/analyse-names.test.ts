import { describe, expect, it } from 'vitest';
import { assignNames } from '../../src/pdf/analysis/names.js';

const run = (...full: string[]) => assignNames(full.map((f) => ({ fullName: f, partialNames: f.split('.') })));

describe('assignNames', () => {
  it('keeps the last partial name without its [n] suffix', () => {
    expect(run('topmostSubform[0].Page1[0].f1_01[0]', 'topmostSubform[0].Page1[0].f1_02[0]')).toEqual([
      'f1_01',
      'f1_02',
    ]);
    expect(run('名前', 'Première prescription', 'form1[0].#subform[0].P1_Line5b_GivenName[0]')).toEqual([
      '名前',
      'Première prescription',
      'P1_Line5b_GivenName',
    ]);
  });

  it('adds parent names when two fields share a last name', () => {
    expect(run('t[0].Page1[0].f1_01[0]', 't[0].Page2[0].f1_01[0]', 't[0].Page2[0].other[0]')).toEqual([
      'Page1.f1_01',
      'Page2.f1_01',
      'other',
    ]);
  });

  it('keeps the index when it is the only difference', () => {
    expect(run('a[0].c1_1[0]', 'a[0].c1_1[1]', 'c1_1[2]')).toEqual(['c1_1_0', 'c1_1_1', 'c1_1_2']);
  });

  it('says a name repeated by XFA subforms once', () => {
    expect(run('f[0].A[0].IA_Edible[0].IA_Edible[0]', 'f[0].B[0].IA_Edible[0].IA_Edible[0]')).toEqual([
      'A.IA_Edible',
      'B.IA_Edible',
    ]);
  });

  it('never reuses another field’s fully qualified name, and suffixes true duplicates', () => {
    expect(run('x', 'a.x')).toEqual(['x', 'a.x']);
    expect(run('dup', 'dup', 'dup')).toEqual(['dup', 'dup_2', 'dup_3']);
  });

  it('is deterministic and unique on many colliding names', () => {
    const full = Array.from({ length: 3000 }, (_, i) => `a[0].b[${i % 7}].c[0].f${i % 50}[${i % 3}]`);
    const first = run(...full);
    expect(new Set(first).size).toBe(full.length);
    expect(run(...full)).toEqual(first);
  });
});
