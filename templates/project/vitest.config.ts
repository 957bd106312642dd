import { defineConfig } from 'vitest/config';

// Each test starts a worker and runs an agent on a real Temporal dev server: give them time.
export default defineConfig({ test: { testTimeout: 60_000, hookTimeout: 120_000 } });
