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
    // Three test files at a time at least: most tests wait on HTTP, timers and child processes (the
    // suite kept 1.2 of 2 cores busy with two at a time). On a quiet 2-core machine it took 8 minutes
    // one file at a time, 7 with two, 6 with three.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests must not leave servers, timers or connections behind.
    teardownTimeout: 10_000,
  },
});
