import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Native addons (better-sqlite3) and spawned service processes are happiest in forked workers.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests must not leave servers, timers or connections behind.
    teardownTimeout: 10_000,
  },
});
