// The example agents that `worker.ts` hosts and the demo runs. The assistant shows the durable features: a read-only
// tool, a tool that needs a person's approval, a streaming tool that resumes from its last checkpoint, and reasoning.
// The concierge shows tool routing: its model sees `searchTools` and `callTool`, and reaches a pool of tools by search.
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { Agent } from '../src/agent/agent.js';
import { createTool } from '../src/tool/tool.js';
import { createReasoningTools } from '../src/tool/reasoning/index.js';
import { conciergeTools } from './concierge-tools.js';

const CITY_WEATHER: Record<string, { tempC: number; conditions: string }> = {
  paris: { tempC: 14, conditions: 'light rain' },
  london: { tempC: 11, conditions: 'overcast' },
  tokyo: { tempC: 19, conditions: 'clear' },
};

/** Looks up the (canned) weather of a city. Read-only: runs without approval. */
export const getWeather = createTool({
  name: 'get_weather',
  description: 'Get the current weather for a city.',
  parameters: z.object({ city: z.string().describe('City name, e.g. Paris') }),
  outputSchema: z.object({ city: z.string(), tempC: z.number(), conditions: z.string() }),
  mcp: { readOnlyHint: true },
  execute: async ({ city }) => {
    const known = CITY_WEATHER[city.trim().toLowerCase()] ?? { tempC: 20, conditions: 'sunny' };
    return { city, ...known };
  },
});

/** Sends an email (simulated). Needs a person's approval before it runs. */
export const sendEmail = createTool({
  name: 'send_email',
  description: 'Send an email to a recipient. Requires approval.',
  parameters: z.object({
    to: z.string().describe('Recipient name or address'),
    subject: z.string(),
    body: z.string(),
  }),
  needsApproval: true,
  mcp: { destructiveHint: true },
  execute: async ({ to, subject }, options) => ({
    sent: true,
    to,
    subject,
    // Stable across retries: a real mail API would use it to send at most once.
    messageId: options?.idempotencyKey ?? 'local',
  }),
});

/**
 * A streaming tool: counts slowly to `to`, one yield per number. Each yield is a checkpoint; when the worker dies,
 * the next attempt receives the last one in `options.checkpoint` and continues from there instead of from 1.
 */
export const countSlowly = createTool({
  name: 'count_slowly',
  description: 'Count from 1 to a number, slowly, reporting progress.',
  parameters: z.object({ to: z.number().int().min(1).max(50), delayMs: z.number().int().min(0).default(300) }),
  execute: async function* ({ to, delayMs }, options) {
    const resumed = options?.checkpoint?.value as { counted: number } | undefined;
    for (let n = (resumed?.counted ?? 0) + 1; n <= to; n++) {
      await delay(delayMs, undefined, { signal: options?.abortSignal });
      yield { counted: n, total: to };
    }
  },
});

/** Builds the demo assistant on the given model (`provider/model`, e.g. `openai/gpt-4o-mini` or `offline/demo`). */
export function createAssistant(model: string): Agent {
  return new Agent({
    name: 'assistant',
    instructions: 'You are a helpful assistant. Use tools when they help; ask for nothing you can look up.',
    model,
    tools: [getWeather, sendEmail, countSlowly],
    toolkits: [createReasoningTools({ addFewShot: false })],
    maxSteps: 8,
    // A model call heartbeats while it streams: a killed worker's call is retried after 3 s without one (the
    // default is 30 s, for models that pause longer between pieces).
    activity: { generate: { heartbeatTimeout: '3 seconds' } },
  });
}

/** The concierge's tools, all pooled: the weather, an email that needs approval, and its own read-only tools. */
export const CONCIERGE_TOOLS = [getWeather, sendEmail, ...conciergeTools];

/**
 * Builds the routed concierge on the given model and embedding model (`provider/model`). Its tools are pooled:
 * the model sees only `searchTools` and `callTool`, finds a tool by describing what it needs, and calls it through
 * `callTool` (an approval-gated tool such as `send_email` still waits for a person).
 */
export function createConcierge(model: string, embedding: string): Agent {
  return new Agent({
    name: 'concierge',
    instructions:
      'You are a travel and office concierge. Find the tool you need with searchTools, then run it with callTool.',
    model,
    tools: CONCIERGE_TOOLS,
    toolRouting: { embedding, topK: 3 },
    maxSteps: 6,
  });
}

/** The model the examples use: `AGENT_MODEL`, else OpenAI when a key is set, else the offline stand-in. */
export function exampleModel(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENT_MODEL) return env.AGENT_MODEL;
  return env.OPENAI_API_KEY ? 'openai/gpt-4o-mini' : 'offline/demo';
}

/**
 * The embedding model the concierge's tool search uses: `AGENT_EMBEDDING_MODEL`, else OpenAI's when the examples'
 * model is a real one with a key, else `offline/hashed-bow` (a hashed bag of words: offline and instant, but it
 * matches words, not meanings).
 */
export function exampleEmbeddingModel(env: NodeJS.ProcessEnv = process.env): string {
  if (env.AGENT_EMBEDDING_MODEL) return env.AGENT_EMBEDDING_MODEL;
  const offline = exampleModel(env).startsWith('offline/');
  return env.OPENAI_API_KEY && !offline ? 'openai/text-embedding-3-small' : 'offline/hashed-bow';
}
