// Your agents and their tools. The worker (src/worker.ts, or `npx durable-agent dev`) hosts everything this file
// exports as `agents`; tools run on the worker as Temporal activities, so a run survives a crash or a restart.
import { z } from 'zod';
import { Agent, createTool, type AgentOptions } from 'durable-agent';

/** A read-only tool: it runs as soon as the model calls it. */
export const lookupOrder = createTool({
  name: 'lookup_order',
  description: 'Look up an order by its id.',
  parameters: z.object({ orderId: z.string().describe('Order id, e.g. A-1001') }),
  execute: async ({ orderId }) => ({ orderId, status: 'delivered', totalEur: 42 }),
});

/** A tool with side effects: every call waits for a person's approval, minutes or days if need be. */
export const refundOrder = createTool({
  name: 'refund_order',
  description: 'Refund an order. A person approves every refund.',
  parameters: z.object({ orderId: z.string().describe('Order id, e.g. A-1001'), reason: z.string() }),
  needsApproval: true,
  // The idempotency key is the same on every retry of this call: a real payment API would refund at most once.
  execute: async ({ orderId }, options) => ({ refunded: true, orderId, refundId: `R-${options?.idempotencyKey}` }),
});

/**
 * The support agent. Its model defaults to `AGENT_MODEL` (e.g. `openai/gpt-4o-mini`, with `OPENAI_API_KEY` set),
 * else `offline/demo`: a rule-based stand-in, not an AI, so everything runs offline. Tests pass a scripted model.
 */
export function createSupportAgent(model: AgentOptions['model'] = process.env.AGENT_MODEL || 'offline/demo'): Agent {
  return new Agent({
    name: 'support',
    instructions: 'You help customers with their orders. Look orders up before refunding them.',
    model,
    tools: [lookupOrder, refundOrder],
  });
}

/** What the worker hosts. */
export const agents = [createSupportAgent()];
