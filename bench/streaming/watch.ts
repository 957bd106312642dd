// The watchers: each reads one run's stream the way its runtime's users do and notes, for every stamped token, how
// long after the model emitted it the token reached this process (this process's clock against the stamp the
// worker's model wrote: one machine, one wall clock). Both read a part the moment their iterator yields it.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { AgentClient } from '../../src/client/agent-client.js';
import { TEMPORAL_AI_SDK_DIR } from '../temporal-ai-sdk-install.js';

/** The part of `@temporalio/workflow-streams`' client the bench uses. */
interface TheirStreamClient {
  subscribe(topic: string, from: number, options: object): AsyncIterable<{ data: Payload }>;
}

/**
 * Temporal's Workflow Streams client, as @temporalio/ai-sdk's users read a run with it: from the isolated install of
 * @temporalio/ai-sdk (durable-agent speaks the protocol itself and does not depend on the package).
 */
function theirStreamClient(client: Client, workflowId: string): TheirStreamClient {
  const load = createRequire(join(TEMPORAL_AI_SDK_DIR, 'package.json'));
  const { WorkflowStreamClient } = load('@temporalio/workflow-streams/client') as {
    WorkflowStreamClient: { create(client: Client, workflowId: string): TheirStreamClient };
  };
  return WorkflowStreamClient.create(client, workflowId);
}

/** Delivery latency (ms) of each token one watcher received, in the order the model emitted them. */
export type TokenLatencies = number[];

const decoder = new TextDecoder();

/** Latencies of the stamps in `text` (`<epoch ms>|` each), all arrived at `arrived`. */
function stampLatencies(text: string, arrived: number, into: TokenLatencies): void {
  for (const stamp of text.split('|')) if (stamp) into.push(arrived - Number(stamp));
}

/** durable-agent: `client.getRun(id).stream()`, text pieces of its `deltas` parts. Ends after the terminal event. */
export async function watchOurs(client: AgentClient, workflowId: string): Promise<TokenLatencies> {
  const latencies: TokenLatencies = [];
  for await (const part of client.getRun(workflowId).stream()) {
    if (part.type !== 'deltas' || part.deltas.type !== 'deltas') continue;
    const arrived = Date.now();
    for (const piece of part.deltas.parts) {
      if (piece.type === 'text-delta') stampLatencies(piece.text, arrived, latencies);
    }
  }
  return latencies;
}

/**
 * @temporalio/ai-sdk: `WorkflowStreamClient.create(client, workflowId).subscribe(topic)`, each item one raw AI SDK
 * stream part as JSON; its `text-delta` parts. `pollCooldownMs` undefined keeps the stream client's default (a
 * 100 ms pause after a poll that drained the log). Ends when the run closes.
 */
export async function watchTheirs(
  client: Client,
  workflowId: string,
  topic: string,
  pollCooldownMs: number | undefined,
): Promise<TokenLatencies> {
  const latencies: TokenLatencies = [];
  const options = pollCooldownMs === undefined ? {} : { pollCooldown: pollCooldownMs };
  for await (const item of theirStreamClient(client, workflowId).subscribe(topic, 0, options)) {
    const arrived = Date.now();
    const part = JSON.parse(decoder.decode(item.data.data ?? new Uint8Array())) as { type: string; delta?: string };
    if (part.type === 'text-delta' && part.delta) stampLatencies(part.delta, arrived, latencies);
  }
  return latencies;
}
