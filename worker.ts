// A runnable worker for the example agents. Configured from the environment: TEMPORAL_ADDRESS,
// TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_MODEL.
import { createAssistant, exampleModel } from './examples/agents.js';
import { createAgentWorker } from './src/worker/create-agent-worker.js';

const worker = await createAgentWorker({
  agents: [createAssistant(exampleModel())],
  // After a worker dies, its runs' next tasks wait this long on its sticky queue before any worker may take them
  // (Temporal's default is 10 s). Shorter means faster recovery, at the cost of more history replays under load.
  worker: { stickyQueueScheduleToStartTimeout: '3s' },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
console.log(`worker polling task queue '${worker.options.taskQueue}' (model ${exampleModel()})`);
await worker.run();
