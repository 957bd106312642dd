// `npm start`: everything in one process, offline. An embedded Temporal dev server (the Temporal CLI is installed
// into your user cache the first time), a worker hosting your agents, and one run with an approval.
import { AgentClient, projectTaskQueue } from 'durable-agent/client';
import { startDevServer } from 'durable-agent/testing';
import { createAgentWorker } from 'durable-agent/worker';
import { agents } from './agents.js';
import { follow } from './client.js';

const input = process.argv.slice(2).join(' ') || 'Refund order A-1001, it arrived broken';
const server = await startDevServer({ uiPort: 0 });
try {
  const options = { address: server.address, namespace: server.namespace, taskQueue: projectTaskQueue() };
  const worker = await createAgentWorker({ ...options, agents });
  const client = await AgentClient.connect(options);
  try {
    await worker.runUntil(async () => {
      const run = await client.start('support', input);
      console.log(`run ${run.id}: ${input}`);
      console.log(`  Web UI: ${server.uiUrl}/namespaces/${server.namespace}/workflows/${run.id}`);
      console.log(`\nanswer: ${await follow(run)}`);
    });
  } finally {
    await client.temporal.connection.close();
  }
  console.log('\nWhat next: edit src/agents.ts, then `npm test`; `npm run dev` hosts your agents for the CLI');
  console.log('(`npx durable-agent start support "..." --watch`); `npm run worker` against a real Temporal.');
} finally {
  await server.stop();
}
