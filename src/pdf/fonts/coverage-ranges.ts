// A set of code points as a short string: sorted ranges, each written as the gap from the previous range's
// end and the range's length, in base 36, comma-separated. The fallback fonts' ~64,000 code points fit in
// ~24 KB this way (fallback-coverage.ts); a lookup is a binary search over the decoded bounds.

/** `cps` sorted ascending, without repeats. */
export function encodeRanges(cps: readonly number[]): string {
  const out: string[] = [];
  let prevEnd = 0;
  for (let i = 0; i < cps.length; ) {
    let j = i;
    while (j + 1 < cps.length && cps[j + 1] === cps[j] + 1) j++;
    out.push((cps[i] - prevEnd).toString(36), (j - i + 1).toString(36));
    prevEnd = cps[j] + 1;
    i = j + 1;
  }
  return out.join(',');
}

/** The ranges of an encoded set: starts[i] <= cp < ends[i]. */
export class CodePointRanges {
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;

  constructor(encoded: string) {
    const parts = encoded ? encoded.split(',') : [];
    this.starts = new Uint32Array(parts.length / 2);
    this.ends = new Uint32Array(parts.length / 2);
    let at = 0;
    for (let i = 0; i < parts.length; i += 2) {
      at += Number.parseInt(parts[i], 36);
      this.starts[i / 2] = at;
      at += Number.parseInt(parts[i + 1], 36);
      this.ends[i / 2] = at;
    }
  }

  has(cp: number): boolean {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cp < this.starts[mid]) hi = mid - 1;
      else if (cp >= this.ends[mid]) lo = mid + 1;
      else return true;
    }
    return false;
  }
}
