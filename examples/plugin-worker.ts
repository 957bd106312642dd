// `npx tsx examples/plugin-worker.ts`: durable agents on a worker and a client a team already has. The team's
// worker polls its own task queue with its own workflows and activities; `DurableAgentPlugin` adds the agent
// workflow, the agent activities, the payload codec and the worker defaults. Then the team's client (given the same
// plugin) runs an ordinary workflow, a workflow that delegates to an agent as a child, and an agent run directly.
//
// Environment: TEMPORAL_ADDRESS (else an embedded dev server), TEMPORAL_NAMESPACE, OPENAI_API_KEY / AGENT_MODEL
// (else the offline stand-in model).
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { AgentClient } from '../src/client/agent-client.js';
import { startDevServer, type DevServer } from '../src/worker/dev-server.js';
import { DurableAgentPlugin } from '../src/worker/plugin.js';
import { createAssistant, exampleModel } from './agents.js';
import * as activities from './plugin-activities.js';

const TASK_QUEUE = 'trip-service';

let server: DevServer | undefined;
const address = process.env.TEMPORAL_ADDRESS ?? (server = await startDevServer()).address;
const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';

// One plugin object for both sides, so the worker and the client agree on the payload codec.
const agents = new DurableAgentPlugin({ agents: [createAssistant(exampleModel())] });

const worker = await Worker.create({
  connection: await NativeConnection.connect({ address }),
  namespace,
  taskQueue: TASK_QUEUE,
  workflowsPath: fileURLToPath(new URL('./plugin-workflows.ts', import.meta.url)),
  activities,
  plugins: [agents],
});
const client = new Client({ connection: await Connection.connect({ address }), namespace, plugins: [agents] });

try {
  await worker.runUntil(async () => {
    const ordinary = await client.workflow.execute('sendItinerary', {
      taskQueue: TASK_QUEUE,
      workflowId: `itinerary-${Date.now()}`,
      args: ['Paris', 'museums in the morning'],
    });
    console.log(`team workflow:        ${ordinary}`);

    const delegated = await client.workflow.execute('planTrip', {
      taskQueue: TASK_QUEUE,
      workflowId: `trip-${Date.now()}`,
      args: ['Tokyo'],
    });
    console.log(`workflow with agent:  ${delegated}`);

    const run = await new AgentClient({ client, taskQueue: TASK_QUEUE }).start('assistant', 'Weather in London?');
    console.log(`agent run ${run.id}: ${(await run.result()).text}`);
  });
} finally {
  await client.connection.close();
  await server?.stop();
}
