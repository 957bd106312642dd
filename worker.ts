// A runnable worker for the example agents (`assistant`, and `concierge` with tool routing). Configured from the
// environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, OPENAI_API_KEY, OPENAI_BASE_URL,
// AGENT_MODEL, AGENT_EMBEDDING_MODEL (the concierge's tool search); tracing from the standard OpenTelemetry variables
// (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SDK_DISABLED); Prometheus metrics at
// DURABLE_AGENT_PROMETHEUS_BIND_ADDRESS; shutdown drain times DURABLE_AGENT_SHUTDOWN_GRACE_TIME (default 30s) and
// DURABLE_AGENT_SHUTDOWN_FORCE_TIME (default 40s). See docs/production.md.
import { createAssistant, createConcierge, exampleEmbeddingModel, exampleModel } from './examples/agents.js';
import { AgentTelemetry } from './src/telemetry/agent-telemetry.js';
import { installRuntimeFromEnv } from './src/telemetry/worker-runtime.js';
import { ProviderRegistry } from './src/models/provider-registry.js';
import { createAgentWorker } from './src/worker/create-agent-worker.js';
import { runUntilSignal } from './src/worker/run-until-signal.js';

// Before any connection: the runtime (and its metrics endpoint) is per process. Signals are handled below.
installRuntimeFromEnv({ shutdownSignals: [] });
const worker = await createAgentWorker({
  agents: [createAssistant(exampleModel()), createConcierge(exampleModel(), exampleEmbeddingModel())],
  // The offline stand-in writes its answers in timed pieces, as a real model streams: a watcher sees them written.
  providers: new ProviderRegistry({ offline: { stream: { chunkChars: 8, chunkDelayMs: 40 } } }),
  worker: {
    // After a worker dies, its runs' next tasks wait this long on its sticky queue before any worker may take them
    // (Temporal's default is 10 s). Shorter means faster recovery, at the cost of more history replays under load.
    stickyQueueScheduleToStartTimeout: '3s',
    ...(process.env.DURABLE_AGENT_SHUTDOWN_GRACE_TIME
      ? { shutdownGraceTime: process.env.DURABLE_AGENT_SHUTDOWN_GRACE_TIME }
      : {}),
    ...(process.env.DURABLE_AGENT_SHUTDOWN_FORCE_TIME
      ? { shutdownForceTime: process.env.DURABLE_AGENT_SHUTDOWN_FORCE_TIME }
      : {}),
  },
});
console.log(
  `worker polling task queue '${worker.options.taskQueue}' (model ${exampleModel()}, ` +
    `tool search ${exampleEmbeddingModel()})`,
);
try {
  await runUntilSignal(worker);
} finally {
  // Spans still buffered are exported before the process ends.
  await AgentTelemetry.current()?.shutdown();
}
