import { defineConfig } from 'vitest/config';

// Integration tests share one machine with a Temporal dev server, so files run in a small number of forks.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
