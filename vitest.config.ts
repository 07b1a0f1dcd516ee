import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Native addons (better-sqlite3) and spawned service processes are happiest in forked workers.
    pool: 'forks',
    // Test files share each worker's module cache (what modules keep is listed at the top of
    // src/app.ts: caches of pure functions, the id byte pool, the process metrics and pg's type
    // parsers, none of which one test can change for another): importing the service afresh for
    // each of ~100 files cost a tenth of the suite's time.
    isolate: false,
    // Two test files at a time at least: most tests wait on HTTP, timers and child processes, so on a
    // 2-core machine (where the default is one) the suite takes 6 minutes instead of 8.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests must not leave servers, timers or connections behind.
    teardownTimeout: 10_000,
  },
});
