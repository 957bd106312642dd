// A worker for your agents against the Temporal that TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE (or a temporal.toml
// profile) names: `npm run worker`. For development, `npm run dev` hosts the same agents on an embedded server.
import { createAgentWorker, runUntilSignal } from 'durable-agent/worker';
import { agents } from './agents.js';

const worker = await createAgentWorker({ agents });
console.log(`worker polling task queue '${worker.options.taskQueue}' for: ${agents.map((a) => a.name).join(', ')}`);
// SIGTERM and Ctrl-C let running tools finish before the worker stops.
await runUntilSignal(worker);
