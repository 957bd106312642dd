// After a drill, its run's live stream: read back from Redis with no worker (the client is configured for Redis, as
// a process beside the Compose stack is), its text the run's answer, with no signal on the run and no update but a
// person's decisions (watching cost the run nothing).
import { Redis } from 'ioredis';
import type { AgentClient } from '../../src/client/agent-client.js';
import type { FullStreamPart } from '../../src/client/full-stream.js';
import { liveStreamKeys } from '../../src/live/redis-live-stream.js';
import { LIVE_MEMO_KEY } from '../../src/protocol/index.js';
import type { DrillRedis } from './redis.js';

/** What the check found; `ok` when the stream came through Redis and its text is the run's answer. */
export interface LiveCheck {
  ok: boolean;
  details: string[];
}

/** Checks the live stream of run `runId`, which had `decisions` approvals or denials (each an update). */
export async function checkLiveStream(
  client: AgentClient,
  redis: DrillRedis,
  runId: string,
  decisions: number,
): Promise<LiveCheck> {
  const handle = client.temporal.workflow.getHandle(runId);
  const memo = (await handle.describe()).memo?.[LIVE_MEMO_KEY];
  if (typeof memo !== 'string') return { ok: false, details: [`live: the run has no ${LIVE_MEMO_KEY} memo`] };
  const connection = new Redis(redis.url);
  let entries: number;
  try {
    entries = await connection.xlen(
      liveStreamKeys('durable-agent:live', { workflowId: runId, firstRunId: memo }).stream,
    );
  } finally {
    connection.disconnect();
  }
  const run = client.getRun(runId);
  const parts: FullStreamPart[] = [];
  for await (const part of run.fullStream) parts.push(part);
  const result = await run.result();
  const finish = parts.at(-1);
  const streamedText = finish?.type === 'finish' ? finish.text : undefined;
  const history = await handle.fetchHistory();
  const signals = (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
  const updates = (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length;
  const ok = entries > 0 && streamedText === result.text && signals === 0 && updates === decisions;
  return {
    ok,
    details: [
      `live: ${entries} entries in Redis, read back with no worker; ${parts.length} stream parts, text ` +
        `${streamedText === result.text ? 'equal to' : 'NOT equal to'} the run's answer; ${signals} signals, ` +
        `${updates} updates (${decisions} decisions)`,
    ],
  };
}
