import { defineConfig } from 'vitest/config';

// `npm run drills`: the scale drills, each against a Temporal dev server of its own (see support/drill-server.ts).
// One file at a time: they load the machine on purpose, and their numbers should not measure each other.
export default defineConfig({
  test: {
    include: ['test/drills/**/*.test.ts'],
    // The suite's Temporal dev server, for the drills written as integration tests (createTestEnv); the scale drills
    // start servers of their own.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 120_000,
  },
});
