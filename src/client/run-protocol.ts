// Which run protocol a run follows, as its memo says (workflows/protocol.ts records it in each execution's first
// workflow task): read with the describe a client makes anyway, never from the run's history.
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkflowClient } from '@temporalio/client';
import { describeExecution } from './history/final-record.js';

/**
 * What a client knows of a run's protocol: its number; `legacy` for an execution whose memo has none although its
 * first task completed (v0.1.0–v0.3.0 code: no stream, events by query); `unknown` when its first task did not
 * complete within the wait (ask the run).
 */
export type KnownProtocol = number | 'legacy' | 'unknown';

/**
 * Reads of the execution while its first task is not complete yet (a busy worker may take seconds to run it), and
 * the first pause between them, growing to 500 ms: about 15 s in all.
 */
const FIRST_TASK_READS = 40;
const FIRST_TASK_PAUSE_MS = 25;

/**
 * The protocol of execution `runId` (undefined: the workflow id's latest). A run just started may not have completed
 * its first task yet: its memo is read again for a while (watchers usually start right after the run), at most
 * `waitMs`.
 */
export async function runProtocolOf(
  client: WorkflowClient,
  workflowId: string,
  runId: string | undefined,
  waitMs = Number.POSITIVE_INFINITY,
): Promise<KnownProtocol> {
  const deadline = Date.now() + waitMs;
  for (let read = 0; read < FIRST_TASK_READS; read++) {
    if (read > 0) {
      const pause = Math.min(FIRST_TASK_PAUSE_MS * read, 500, deadline - Date.now());
      if (pause <= 0) break;
      await delay(pause);
    }
    const described = await describeExecution(client, workflowId, runId);
    const protocol = await described.protocol();
    if (protocol !== undefined) return protocol;
    if (!described.firstTaskPending) return 'legacy';
  }
  return 'unknown';
}

/** Whether a run of this protocol has a stream (protocol 4 on); undefined when unknown. */
export function protocolHasStream(protocol: KnownProtocol): boolean | undefined {
  if (protocol === 'unknown') return undefined;
  return protocol !== 'legacy' && protocol >= 4;
}
