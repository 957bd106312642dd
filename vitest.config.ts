import { configDefaults, defineConfig } from 'vitest/config';

// Set by .ci/run: also write a machine-readable report, from which CI counts passed and failed tests.
const jsonReport = process.env.VITEST_JSON_REPORT;

// Integration tests share one machine with a Temporal dev server, so files run in a small number of forks.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The scale drills take minutes and start servers of their own: `npm run drills`.
    exclude: [...configDefaults.exclude, 'test/drills/**'],
    // One Temporal dev server for the whole run; test files read its address with inject('temporalAddress').
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: jsonReport ? ['default', 'json'] : ['default'],
    ...(jsonReport ? { outputFile: { json: jsonReport } } : {}),
  },
});
