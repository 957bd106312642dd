// The embedded dev server lifts the history shard's task-loading rate limit (history.transferProcessorMaxPollRPS,
// 20 a second by default), which otherwise paces every sequential run at ~50 ms per task, and serves its Web UI
// when asked.
import { describe, expect, it } from 'vitest';
import { DEV_SERVER_DYNAMIC_CONFIG, startDevServer } from '../../src/worker/dev-server.js';

describe('startDevServer', () => {
  it('starts the server with the transfer-queue limit lifted and, with uiPort, the embedded Web UI', async () => {
    const server = await startDevServer({ uiPort: 0 });
    try {
      const args = server.process.spawnargs;
      const values = args.flatMap((arg, i) => (args[i - 1] === '--dynamic-config-value' ? [arg] : []));
      expect(values).toEqual([...DEV_SERVER_DYNAMIC_CONFIG]);
      const limit = values.find((value) => value.startsWith('history.transferProcessorMaxPollRPS='));
      expect(Number(limit?.split('=')[1])).toBeGreaterThanOrEqual(1_000);
      const page = await fetch(`${server.uiUrl!}/namespaces/default/workflows`);
      expect(page.status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
