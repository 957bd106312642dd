// The bench workload on Temporal's @temporalio/ai-sdk, written the way its documentation shows: the AI SDK's own
// `generateText` loop runs inside the workflow, the model is `temporalProvider` (each model call an
// `invokeModel` activity), and the tool's `execute` calls an activity, as a tool doing I/O must. With `approval`,
// the tool's `execute` first waits for the `approve` update, the way a Temporal workflow waits for a person.
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { condition, defineQuery, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import { generateText, isStepCount, jsonSchema, tool } from 'ai';

const { lookup } = proxyActivities({ startToCloseTimeout: '1 minute' });

/** The run's transcript, read by the bench after the run (a query, so it is not recorded in history). */
export const transcriptQuery = defineQuery('transcript');

/** Lets a run waiting for approval call its tool. */
export const approveUpdate = defineUpdate('approve');

/**
 * One agent run: `toolSteps` steps that each call `lookup`, then a final text (the script is in the model id).
 *
 * @param {{ modelId: string, system: string, prompt: string, maxSteps: number, toolDescription: string, approval?: boolean }} input
 */
export async function aiSdkAgent(input) {
  /** @type {unknown[]} */
  let transcript = [];
  let approved = input.approval !== true;
  setHandler(transcriptQuery, () => transcript);
  setHandler(approveUpdate, () => {
    approved = true;
  });
  const result = await generateText({
    model: temporalProvider.languageModel(input.modelId),
    system: input.system,
    prompt: input.prompt,
    tools: {
      lookup: tool({
        description: input.toolDescription,
        inputSchema: jsonSchema({
          type: 'object',
          properties: { key: { type: 'string' }, bytes: { type: 'integer' } },
          required: ['key', 'bytes'],
          additionalProperties: false,
        }),
        execute: async (args) => {
          if (!approved) await condition(() => approved);
          return await lookup(args);
        },
      }),
    },
    stopWhen: isStepCount(input.maxSteps),
  });
  transcript = [
    { role: 'system', content: input.system },
    { role: 'user', content: input.prompt },
    ...result.responseMessages,
  ];
  return { text: result.text, steps: result.steps.length };
}

// The worker bundles this module only: the streaming bench's workflow is registered through it.
export { aiSdkStreamingAgent } from './streaming-workflows.mjs';
