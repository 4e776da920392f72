import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Four forks on CI's two cores, on purpose: with two, the machine sat ~half idle (files waiting on
    // servers, child processes, browsers and leases), and the suite took 1,216-1,395 s; with four it is
    // ~99 % busy and takes ~790 s (docs/performance.md, Session 20). Every test must hold on a busy
    // machine anyway, and this is one.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 4, minForks: 1 } },
    reporters: ['default'],
  },
});
