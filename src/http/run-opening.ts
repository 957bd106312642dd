// What a run was asked, and whether its agent lets people other than the run's user decide: both are recorded in the
// first events of the run's first execution (its input, and the `describeAgent` result), so they are read from
// Temporal with no worker, once per run (they never change), and kept in a bounded cache.
import type { SerializationContext } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import type { AgentClient } from '../client/agent-client.js';
import type { AgentDescription, AgentRunInput, TranscriptMessage } from '../protocol/index.js';

/** What the first events of a run say about it. */
export interface RunOpening {
  /** What the user asked (the turn's message), cut at {@link MAX_ASKED_CHARS}. Absent when it has no text. */
  asked?: string;
  /**
   * Whether the agent has an `authorizeDecision` hook, so someone other than the run's user may decide its approvals
   * and answer its questions (the hook still checks each one). Absent when the history does not say (not yet described).
   */
  othersMayDecide?: boolean;
}

/** Characters of the user's message an inbox shows (a card is a summary; the run's page has the whole message). */
export const MAX_ASKED_CHARS = 280;
/** The first events hold the input and the `describeAgent` marker (its first workflow task's local activity). */
const OPENING_EVENTS = 30;
/** Runs whose opening one cache keeps (the oldest read goes first). */
const MAX_CACHED = 2_000;
const DESCRIBE_AGENT = 'describeAgent';

/** Reads and caches the openings of runs, by run. */
export class RunOpenings {
  private readonly cache = new Map<string, RunOpening>();

  constructor(private readonly client: AgentClient) {}

  /**
   * The opening of the run `firstRunId` started. A read that fails (the history is gone, a payload this client cannot
   * decode) gives `{}` and is tried again next time. Calls made in a `withAbortSignal` scope are cancelled with it.
   */
  async of(workflowId: string, firstRunId: string): Promise<RunOpening> {
    const key = `${workflowId}\u0000${firstRunId}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    let opening: RunOpening;
    try {
      opening = await this.read(workflowId, firstRunId);
    } catch {
      return {};
    }
    // Not yet described: what the agent allows is asked again on the next read.
    if (opening.othersMayDecide === undefined) return opening;
    this.cache.set(key, opening);
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    return opening;
  }

  private async read(workflowId: string, runId: string): Promise<RunOpening> {
    const temporal = this.client.temporal;
    const { namespace, loadedDataConverter } = temporal.options;
    const response = await temporal.workflowService.getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId, runId },
      maximumPageSize: OPENING_EVENTS,
      skipArchival: true,
    });
    const context: SerializationContext = { type: 'workflow', namespace, workflowId };
    const events = response.history?.events ?? [];
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    const opening: RunOpening = {};
    if (started) {
      const input = await decodeFromPayloadsAtIndex<AgentRunInput>(
        loadedDataConverter,
        0,
        started.input?.payloads,
        context,
      );
      const asked = askedText(input);
      if (asked !== undefined) opening.asked = asked;
    }
    for (const event of events) {
      const marker = event.markerRecordedEventAttributes;
      if (marker?.markerName !== 'core_local_activity') continue;
      if (localActivityType(marker.details?.data?.payloads?.[0]?.data) !== DESCRIBE_AGENT) continue;
      const description = await decodeFromPayloadsAtIndex<AgentDescription>(
        loadedDataConverter,
        0,
        marker.details?.result?.payloads,
        context,
      );
      opening.othersMayDecide = description.approval?.authorize === true;
      break;
    }
    return opening;
  }
}

/** The text of the last user message of a first execution's input (a chat turn's input ends with it), bounded. */
export function askedText(input: Pick<AgentRunInput, 'input'>): string | undefined {
  const messages: TranscriptMessage[] =
    typeof input.input === 'string' ? [{ role: 'user', content: input.input }] : input.input;
  const user = messages.findLast((message) => message.role === 'user');
  if (!user) return undefined;
  const text = (
    typeof user.content === 'string'
      ? user.content
      : user.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
  )
    .replace(/\s+/g, ' ')
    .trim();
  if (text === '') return undefined;
  const chars = Array.from(text);
  return chars.length > MAX_ASKED_CHARS ? `${chars.slice(0, MAX_ASKED_CHARS).join('').trimEnd()}…` : text;
}

function localActivityType(data: Uint8Array | null | undefined): string | undefined {
  if (!data) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type?: unknown };
    return typeof parsed.activity_type === 'string' ? parsed.activity_type : undefined;
  } catch {
    return undefined;
  }
}
