// The two drills, against a real server and real worker processes:
// - crash: SIGKILL the worker while a streaming tool runs; a new worker resumes the tool from its last checkpoint
//   and the run finishes with the full result;
// - approval: SIGKILL the worker while the run waits for a person; a new worker still shows the pending approval,
//   the approval is applied, and the approved tool runs exactly once.
import type { AgentClient } from '../../src/client/agent-client.js';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import type { RunEvent } from '../../src/protocol/index.js';
import type { Service } from './processes.js';

/** What one drill measured. */
export interface DrillResult {
  name: string;
  ok: boolean;
  /** The drill's run. */
  runId: string;
  /** Wall time of the whole drill. */
  totalMs: number;
  /** From the SIGKILL until the new worker polls (its start-up: bundling the workflows, connecting). */
  workerReadyMs: number;
  /** From the SIGKILL to the run's first answer on the new worker (an event, or its state). */
  recoveryMs: number;
  details: string[];
}

type StartWorker = () => Promise<Service>;

/** SIGKILL mid-tool: the streaming `count_slowly` resumes from its checkpoint on the next worker. */
export async function crashDrill(
  client: AgentClient,
  worker: Service,
  startWorker: StartWorker,
): Promise<{ result: DrillResult; worker: Service }> {
  const started = performance.now();
  const run = await client.start('assistant', 'Count slowly to 20', {
    workflow: { workflowExecutionTimeout: '5 minutes' },
  });
  const before: number[] = [];
  let after = 0;
  for await (const part of run.stream()) {
    after = part.offset + 1;
    addCount(before, countedOf(part));
    if (before.length >= 5) break;
  }
  const killedAt = performance.now();
  await worker.kill();
  const next = await startWorker();
  const workerReadyMs = performance.now() - killedAt;
  const resumed: number[] = [];
  let recoveryMs = 0;
  for await (const part of run.stream({ from: after })) {
    if (recoveryMs === 0) recoveryMs = performance.now() - killedAt;
    addCount(resumed, countedOf(part));
  }
  const result = await run.result();
  // What the model saw: `{ type: 'json', value }`.
  const seen = result.toolResults.find((r) => r.toolName === 'count_slowly')?.output as
    | { type?: string; value?: { counted?: number } }
    | undefined;
  const output = seen?.value;
  const lastBefore = before.at(-1) ?? 0;
  // Resumed from the last checkpoint the server had: at most the heartbeat throttle (200 ms, one count) behind.
  const ok =
    result.stopReason === 'completed' &&
    output?.counted === 20 &&
    resumed[0] !== undefined &&
    resumed[0] > 1 &&
    resumed[0] >= lastBefore - 1;
  return {
    worker: next,
    result: {
      name: 'crash (SIGKILL mid-tool)',
      ok,
      runId: run.id,
      totalMs: performance.now() - started,
      workerReadyMs,
      recoveryMs,
      details: [
        `counted ${before.join(',')} on worker 1, killed; worker 2 went on with ${resumed.slice(0, 3).join(',')}… to ${resumed.at(-1)}`,
        `tool result ${JSON.stringify(output)}, run ${result.stopReason}`,
      ],
    },
  };
}

/** SIGKILL while waiting for approval: the approval survives, is applied, and the tool runs once. */
export async function approvalDrill(
  client: AgentClient,
  worker: Service,
  startWorker: StartWorker,
): Promise<{ result: DrillResult; worker: Service }> {
  const started = performance.now();
  const run = await client.start(
    'assistant',
    'Check the current weather in Paris and email "Paris weather update" to team@example.com.',
    {
      workflow: { workflowExecutionTimeout: '5 minutes' },
    },
  );
  let pending: Extract<RunEvent, { type: 'approval-requested' }> | undefined;
  for await (const event of run.events()) {
    if (event.type === 'approval-requested') {
      pending = event;
      break;
    }
  }
  if (!pending) throw new Error('The run never asked for approval.');
  const killedAt = performance.now();
  await worker.kill();
  const next = await startWorker();
  const workerReadyMs = performance.now() - killedAt;
  const state = await run.state();
  const recoveryMs = performance.now() - killedAt;
  const stillPending = state.pendingApprovals.some((p) => p.toolCallId === pending.toolCallId);
  await run.approve(pending.toolCallId, { approver: 'drill', reason: 'production drill' });
  const result = await run.result();
  const sends = result.toolResults.filter((r) => r.toolName === 'send_email').length;
  const ok = stillPending && result.stopReason === 'completed' && result.approvals.length === 1 && sends === 1;
  return {
    worker: next,
    result: {
      name: 'approval (SIGKILL while waiting)',
      ok,
      runId: run.id,
      totalMs: performance.now() - started,
      workerReadyMs,
      recoveryMs,
      details: [
        `pending after the crash: ${stillPending}; approvals recorded: ${result.approvals.length}; send_email results: ${sends}`,
        `run ${result.stopReason}: ${JSON.stringify(result.text.slice(0, 80))}…`,
      ],
    },
  };
}

/**
 * The count a part of the run's stream reports: a `tool-progress` event, or a streaming tool's yield on the
 * `progress` topic (on Redis the yield does not reach the run: the reader makes its event, right after it).
 */
function countedOf(part: RunStreamPart): number | undefined {
  const value =
    part.type === 'progress'
      ? part.progress.value
      : part.type === 'event' && part.event.type === 'tool-progress'
        ? part.event.value
        : undefined;
  const counted = (value as { counted?: unknown } | null | undefined)?.counted;
  return typeof counted === 'number' ? counted : undefined;
}

/** Adds a count, once: a yield can come both as progress and as its event. */
function addCount(counts: number[], counted: number | undefined): void {
  if (counted !== undefined && counts.at(-1) !== counted) counts.push(counted);
}
