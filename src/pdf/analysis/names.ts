// Short, readable, unique and deterministic field keys derived from fully qualified PDF names:
// "topmostSubform[0].Page1[0].f1_01[0]" becomes "f1_01", and "Page1.f1_01" / "Page2.f1_01" only
// when two fields would otherwise share a key. The same file always yields the same keys because
// the field order (tree order) is deterministic.

/** "f1_01[0]" -> ["f1_01", "0"]; names without a trailing [digits] -> [name, undefined]. */
function splitIndex(part: string): [string, string | undefined] {
  if (!part.endsWith(']')) return [part, undefined];
  const open = part.lastIndexOf('[');
  const digits = part.slice(open + 1, -1);
  if (open < 0 || digits === '' || !/^\d+$/.test(digits)) return [part, undefined];
  return [part.slice(0, open), digits];
}

const strip = (part: string) => splitIndex(part)[0];
/** "c1_1[6]" -> "c1_1_6": keeps the index visible when it is the only difference. */
function indexed(part: string): string {
  const [base, index] = splitIndex(part);
  return index === undefined ? part : `${base}_${index}`;
}

/** XFA-made forms repeat a name for the subform and its field ("A[0].A[0]"): say it once. */
const collapse = (parts: string[]) => parts.filter((p, i) => i === 0 || p !== parts[i - 1]);

/**
 * Candidate keys for one field, shortest and most readable first, built lazily: most fields
 * never need more than the first one, and deep XFA names would make the full list quadratic.
 */
class Variants {
  private readonly stripped: string[];
  private indexedParts?: string[];
  private readonly list: string[] = [];
  private k = 0;

  constructor(private readonly parts: string[]) {
    this.stripped = parts.map(strip);
    if (parts.length === 0) this.list.push('field');
  }

  /** The candidate at `level`, or the last one when there are fewer. */
  at(level: number): string {
    while (this.list.length <= level && this.k < this.parts.length) this.extend();
    return this.list[Math.min(level, this.list.length - 1)];
  }

  hasMore(level: number): boolean {
    this.at(level + 1);
    return level + 1 < this.list.length;
  }

  private extend(): void {
    const k = ++this.k;
    const n = this.parts.length;
    const tailS = this.stripped.slice(n - k);
    if (k === 1) {
      this.list.push(tailS[0] === '' ? this.parts[n - 1] : tailS[0]);
      // The indexed forms are only needed once the plain name collides (k = 2 adds them).
      if (n === 1 && !this.list.includes(indexed(this.parts[0]))) this.list.push(indexed(this.parts[0]));
      return;
    }
    const ix = (this.indexedParts ??= this.parts.map(indexed));
    for (const cand of [
      ix[n - 1],
      collapse(tailS).join('.'),
      collapse([...tailS.slice(0, -1), ix[n - 1]]).join('.'),
      ix.slice(n - k).join('.'),
    ]) {
      if (cand !== '' && !this.list.includes(cand)) this.list.push(cand);
    }
    if (this.list.length === 0 && k === n) this.list.push('field');
  }
}

/**
 * One key per field, parallel to the input. A key never equals another field's fully qualified
 * name either, because render data accepts both and must not be ambiguous.
 */
export function assignNames(fields: { partialNames: string[]; fullName: string }[]): string[] {
  const options = fields.map((f) => new Variants(f.partialNames));
  const level = fields.map(() => 0);
  const fullNames = new Map<string, number>();
  fields.forEach((f, i) => {
    if (!fullNames.has(f.fullName)) fullNames.set(f.fullName, i);
  });
  const nameAt = (i: number) => options[i].at(level[i]);

  // Levels only grow and are bounded, so this terminates; the cap is a belt-and-braces guard.
  for (let round = 0; round < 64; round++) {
    const groups = new Map<string, number[]>();
    fields.forEach((_, i) => {
      const n = nameAt(i);
      const g = groups.get(n);
      if (g) g.push(i);
      else groups.set(n, [i]);
    });
    let progressed = false;
    for (const [name, members] of groups) {
      const owner = fullNames.get(name);
      const clash = members.length > 1 ? members : owner !== undefined && owner !== members[0] ? members : [];
      for (const i of clash) {
        if (options[i].hasMore(level[i])) {
          level[i]++;
          progressed = true;
        }
      }
    }
    if (!progressed) break;
  }

  // Whatever still collides (identical names in the PDF) gets _2, _3, ... in field order.
  const taken = new Set<string>();
  return fields.map((_, i) => {
    let name = nameAt(i);
    const owner = fullNames.get(name);
    if (taken.has(name) || (owner !== undefined && owner !== i)) {
      let n = 2;
      while (taken.has(`${name}_${n}`) || fullNames.has(`${name}_${n}`)) n++;
      name = `${name}_${n}`;
    }
    taken.add(name);
    return name;
  });
}
