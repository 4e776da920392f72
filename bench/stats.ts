// Small statistics helpers shared by every bench: nearest-rank percentiles over raw samples, and a
// timing loop that warms up first (JIT, caches) and stops early on slow cases to keep the run short.

export interface Summary {
  n: number;
  median: number;
  p95: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarise(samples: number[]): Summary {
  const n = samples.length;
  const mean = n ? samples.reduce((a, b) => a + b, 0) / n : NaN;
  return {
    n,
    median: percentile(samples, 50),
    p95: percentile(samples, 95),
    mean,
    min: Math.min(...samples),
    max: Math.max(...samples),
  };
}

export interface TimeOptions {
  /** measured iterations wanted */
  iterations: number;
  /** unmeasured iterations first */
  warmup: number;
  /**
   * and go on warming up until this many ms have passed: the first form a fresh process renders meets V8
   * compiling the whole engine (its first 20 renders of a 713-field form ran with the compiler's threads busy)
   */
  warmupMs?: number;
  /** stop measuring after this many seconds (at least minIterations are always done) */
  maxSeconds: number;
  minIterations?: number;
}

/** Times fn() sequentially; each sample is one call's wall time in ms. */
export async function timeIt(fn: () => unknown, opts: TimeOptions): Promise<Summary> {
  const warmUntil = performance.now() + (opts.warmupMs ?? 0);
  for (let i = 0; i < opts.warmup || performance.now() < warmUntil; i++) await fn();
  const samples: number[] = [];
  const min = Math.min(opts.iterations, opts.minIterations ?? 5);
  const deadline = performance.now() + opts.maxSeconds * 1000;
  for (let i = 0; i < opts.iterations; i++) {
    const t = performance.now();
    await fn();
    samples.push(performance.now() - t);
    if (samples.length >= min && performance.now() > deadline) break;
  }
  return summarise(samples);
}
