import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * What CI's second half (Node 24 with PostgreSQL, .ci/run: TEST_SCOPE=second-node) leaves to
 * the first (Node 20, every test): test files with no database choice that drive a browser, the CLI
 * or whole processes over HTTP, whose Node-dependent parts (the native SQLite and canvas modules,
 * Node's own APIs) the unit tests under src/ and the per-database tests reach again. Such tests in
 * files that also hold per-database ones are marked in the file (describeWithoutDatabase,
 * test/helpers/databases.ts). The two halves one after the other on two cores took CI past its 20
 * minutes; run at once they starved each other.
 */
const FIRST_NODE_ONLY = [
  'test/browser/**',
  'test/batches-large.test.ts',
  'test/batches-cli.test.ts',
  'test/batches-fairness.test.ts',
  'test/batches-aerodatabox.test.ts',
  'test/client-package.test.ts',
  'test/evidence-cli.test.ts',
  'test/openapi.test.ts',
  'test/watches-cli.test.ts',
];
const tests = process.env.TEST_SCOPE?.trim() || 'all';
if (!['all', 'second-node'].includes(tests))
  throw new Error(`TEST_SCOPE must be all or second-node (got ${JSON.stringify(tests)})`);

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(tests === 'second-node' ? FIRST_NODE_ONLY : [])],
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
