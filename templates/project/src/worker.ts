// A worker for your agents against the Temporal that TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (or a temporal.toml
// profile) names: `npm run worker`. For development, `npm run dev` hosts the same agents on an embedded server.
// The task queue is this project's (the name in package.json, or TEMPORAL_TASK_QUEUE), as for `npx durable-agent`:
// another project on the same Temporal has its own, so neither takes the other's runs.
import { createAgentWorker, projectTaskQueue, runUntilSignal } from 'durable-agent/worker';
import { agents } from './agents.js';

const worker = await createAgentWorker({ agents, taskQueue: projectTaskQueue() });
console.log(`worker polling task queue '${worker.options.taskQueue}' for: ${agents.map((a) => a.name).join(', ')}`);
// SIGTERM and Ctrl-C let running tools finish before the worker stops.
await runUntilSignal(worker);
