// bench/streaming.ts's workload on Temporal's @temporalio/ai-sdk streaming, written the way its documentation
// shows: the workflow hosts a `WorkflowStream`, the AI SDK's own `streamText` runs inside it over a
// `TemporalProvider` whose language model has a `streamingTopic`, so the model call is one `invokeModelStreaming`
// activity that publishes every raw AI SDK stream part to that topic as JSON while it runs.
import { TemporalProvider } from '@temporalio/ai-sdk/workflow';
import { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import { streamText } from 'ai';

/**
 * One streamed model step: the model (`stamping:<tokens>:<delayMs>`, see scripted-model.mjs) writes its text, the
 * activity publishes it on `topic`, and the run returns the text the step assembled.
 *
 * @param {{ modelId: string, prompt: string, topic: string, batchIntervalMs?: number }} input
 */
export async function aiSdkStreamingAgent(input) {
  // Registers the stream's publish signal, poll update and offset query before the first await, so neither the
  // activity's first publish nor a watcher's first poll can reach the run before it takes them.
  new WorkflowStream();
  const provider = new TemporalProvider({
    languageModel: {
      streamingTopic: input.topic,
      ...(input.batchIntervalMs !== undefined ? { streamingBatchInterval: input.batchIntervalMs } : {}),
    },
  });
  const result = streamText({ model: provider.languageModel(input.modelId), prompt: input.prompt });
  return { text: await result.text, steps: (await result.steps).length };
}
