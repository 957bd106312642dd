// A closed execution's transcript, rebuilt from its history with no worker: every message is recorded once, in the
// run's input (or the continued-as-new input), the `describeAgent` result, a `generate` result, or the next
// `generate` input's delta (a step's tool message, with executed results by reference to `executeTool` results and
// large client-side results by pointer to the update or signal that carried them).
import type { WorkflowClient } from '@temporalio/client';
import type { Payload, SerializationContext } from '@temporalio/common';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import type { temporal } from '@temporalio/proto';
import {
  FINAL_RECORD_MEMO_KEY,
  FailureType,
  defaultModelOutput,
  isFinalRunRecord,
  firstMessages,
  initialMessages,
  type AgentDescription,
  type AgentRunInput,
  type AgentRunOutput,
  type ExecuteToolResult,
  type FinalRunRecord,
  type GenerateInput,
  type GenerateResult,
  type RankToolsResult,
  type ToolResultOutput,
  type ToolResultSubmission,
  type TranscriptMessage,
} from '../protocol/index.js';
import { toolResultSignal, toolResultUpdate } from '../protocol/run-messages.js';

/** One event of a workflow history, as the Temporal client returns it. */
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type ToolPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolResultOutput };

/** How a closed execution ended, as its close event says. */
export type ClosedAs = 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed-out' | 'continued-as-new';

/** What {@link transcriptFromHistory} found. `messages` is undefined when the history does not prove the transcript. */
export interface HistoryTranscript {
  closedAs: ClosedAs | undefined;
  messages: TranscriptMessage[] | undefined;
}

/**
 * Rebuilds the transcript of one execution from its history, decoding payloads with the client's data converter
 * (its payload codec included). Returns `messages: undefined` when the history holds something this client cannot
 * rebuild (a step's results it has no record of, a history of another shape): the caller then asks a worker. For
 * a completed run the rebuilt transcript is checked against the message count in the run's result.
 */
export async function transcriptFromHistory(
  client: WorkflowClient,
  workflowId: string,
  runId: string,
): Promise<HistoryTranscript> {
  const events = (await client.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  const context: SerializationContext = { type: 'workflow', namespace: client.options.namespace, workflowId };
  return await transcriptFromEvents(events, (payloads) =>
    decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, payloads, context),
  );
}

/** Decodes the first value of a payload list (see {@link transcriptFromHistory}). */
export type DecodePayloads = (payloads: Payload[] | null | undefined) => Promise<unknown>;

/** {@link transcriptFromHistory} on history events already fetched. */
export async function transcriptFromEvents(
  events: HistoryEvent[],
  decodeFirst: DecodePayloads,
): Promise<HistoryTranscript> {
  const decode = async <T>(payloads: Payload[] | null | undefined) => (await decodeFirst(payloads)) as T;
  try {
    return await rebuild(events, decode);
  } catch (error) {
    if (error instanceof Unrebuildable) return { closedAs: closedAs(events.at(-1)), messages: undefined };
    throw error;
  }
}

/** The history has something this rebuild does not know: a worker's query knows better. */
class Unrebuildable extends Error {}

async function rebuild(
  events: HistoryEvent[],
  decode: <T>(payloads: Payload[] | null | undefined) => Promise<T>,
): Promise<HistoryTranscript> {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  if (!started) throw new Unrebuildable();
  const input = await decode<AgentRunInput>(started.input?.payloads);
  const messages: TranscriptMessage[] = input.continuation ? [...input.continuation.messages] : [];
  const scheduled = new Map<string, HistoryEvent>();
  const executed = new Map<string, ToolResultOutput>();
  const executedByCall = new Map<string, Extract<ExecuteToolResult, { kind: 'ok' | 'error' | 'denied' }>>();
  const clientResults = new Map<string, ToolResultSubmission>();
  let last: GenerateResult | undefined;

  for (const event of events) {
    const id = String(event.eventId);
    const scheduling = event.activityTaskScheduledEventAttributes;
    if (scheduling) scheduled.set(id, event);
    // The previous step's tool message was pushed before this model call was scheduled, whether or not it completed.
    if (scheduling?.activityType?.name === 'generate') {
      const generateInput = await decode<GenerateInput>(scheduling.input?.payloads);
      if (generateInput.delta)
        messages.push(toolMessage(generateInput.delta, messages.length, executed, clientResults));
      if (generateInput.messageCount !== messages.length) throw new Unrebuildable();
    }
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_local_activity') {
      const type = localActivityType(marker.details?.data?.payloads?.[0]);
      if (type === 'describeAgent' && !input.continuation) {
        const description = await decode<AgentDescription>(marker.details?.result?.payloads);
        messages.push(...firstMessages(description.systemPrompt, initialMessages(input.input)));
      } else if (type === 'executeTool') {
        keepExecuted(await decode<ExecuteToolResult>(marker.details?.result?.payloads), executed);
      }
    }
    const completed = event.activityTaskCompletedEventAttributes;
    if (completed) {
      const attributes = scheduled.get(String(completed.scheduledEventId))?.activityTaskScheduledEventAttributes;
      const type = attributes?.activityType?.name;
      if (type === 'generate') {
        last = await decode<GenerateResult>(completed.result?.payloads);
        messages.push(...last.messages);
      } else if (type === 'executeTool') {
        const result = await decode<ExecuteToolResult>(completed.result?.payloads);
        keepExecuted(result, executed);
        const call = await decode<{ toolCallId: string }>(attributes?.input?.payloads);
        if (result.kind !== 'elicitation-pending') executedByCall.set(call.toolCallId, result);
      } else if (type === 'rankTools') {
        // A routed run's search: the model reads its result in the default encoding (see workflows/tool-search.ts).
        const ranked = await decode<RankToolsResult>(completed.result?.payloads);
        executed.set(ranked.outputId, defaultModelOutput(ranked.result));
      }
    }
    await keepClientResult(event, decode, clientResults);
  }

  const close = events.at(-1);
  const how = closedAs(close);
  const output = close?.workflowExecutionCompletedEventAttributes
    ? await decode<AgentRunOutput>(close.workflowExecutionCompletedEventAttributes.result?.payloads)
    : undefined;
  const final = await finalTranscript(events, decode);
  if (final) {
    // A 0.4.0 run said how its transcript ends: its unsent last tool message and its message count.
    if (final.delta) messages.push(toolMessage(final.delta, messages.length, executed, clientResults));
    if (final.messageCount !== messages.length) throw new Unrebuildable();
    if (output !== undefined && output.messageCount !== messages.length) throw new Unrebuildable();
    if (how === 'continued-as-new' || how === undefined) throw new Unrebuildable();
    return { closedAs: how, messages };
  }
  // A run ended on older code recorded none. The last step's tool message has no next `generate` to carry it: the run pushed it when the step finished, which
  // a run stopped by its step budget or by a tool's ToolDeniedError did; a cancelled or failed step did not.
  const finishedLastStep =
    (output !== undefined && output.stopReason !== 'completed') ||
    close?.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo?.type === FailureType.ToolDenied;
  if (finishedLastStep && last && last.toolCalls.length > 0) messages.push(lastToolMessage(last, executedByCall));
  if (output !== undefined && output.messageCount !== messages.length) throw new Unrebuildable();
  if (how === 'continued-as-new' || how === undefined) throw new Unrebuildable();
  return { closedAs: how, messages };
}

/**
 * The transcript part of the final record the run's last workflow task wrote (workflows/final-record.ts), if any:
 * only the commands after the last task's completion are the run's own, not a memo its starter set.
 */
async function finalTranscript(
  events: HistoryEvent[],
  decode: <T>(payloads: Payload[] | null | undefined) => Promise<T>,
): Promise<FinalRunRecord['transcript']> {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.workflowTaskCompletedEventAttributes) return undefined;
    const payload = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields?.[FINAL_RECORD_MEMO_KEY];
    if (!payload) continue;
    const record = await decode<unknown>([payload]);
    if (!isFinalRunRecord(record) || !isFinalTranscript(record.transcript)) return undefined;
    return record.transcript;
  }
  return undefined;
}

function isFinalTranscript(value: unknown): value is NonNullable<FinalRunRecord['transcript']> {
  if (typeof value !== 'object' || value === null) return false;
  const { messageCount, delta } = value as { messageCount?: unknown; delta?: { at?: unknown; content?: unknown } };
  if (typeof messageCount !== 'number') return false;
  return delta === undefined || (typeof delta.at === 'number' && Array.isArray(delta.content));
}

/** A step's tool message from the delta the next `generate` input carries. */
function toolMessage(
  delta: NonNullable<GenerateInput['delta']>,
  at: number,
  executed: Map<string, ToolResultOutput>,
  clientResults: Map<string, ToolResultSubmission>,
): TranscriptMessage {
  if (delta.at !== at) throw new Unrebuildable();
  const content = delta.content.map((part): ToolPart => {
    const { toolCallId, toolName } = part;
    if (part.type === 'tool-result') return part;
    if (part.type === 'tool-result-ref') {
      const output = executed.get(part.outputId);
      if (!output) throw new Unrebuildable();
      return { type: 'tool-result', toolCallId, toolName, output };
    }
    const submission = clientResults.get(toolCallId);
    if (!submission) throw new Unrebuildable();
    const output: ToolResultOutput = submission.isError
      ? { type: 'error-json', value: submission.output }
      : defaultModelOutput(submission.output);
    return { type: 'tool-result', toolCallId, toolName, output };
  });
  return { role: 'tool', content };
}

/** The last step's tool message, when every call of it ran in an `executeTool` activity (or was invalid). */
function lastToolMessage(
  generated: GenerateResult,
  executedByCall: Map<string, Extract<ExecuteToolResult, { kind: 'ok' | 'error' | 'denied' }>>,
): TranscriptMessage {
  const content = generated.toolCalls.map((call): ToolPart => {
    const { toolCallId, toolName } = call;
    if (call.route) throw new Unrebuildable();
    if (call.status === 'invalid') return { type: 'tool-result', toolCallId, toolName, output: errorText(call.error) };
    if (call.needsApproval || call.clientSide) throw new Unrebuildable();
    const result = executedByCall.get(toolCallId);
    if (!result) throw new Unrebuildable();
    const output =
      result.kind === 'denied'
        ? errorText(result.error.message)
        : (result.modelOutput ?? defaultModelOutput(result.output));
    return { type: 'tool-result', toolCallId, toolName, output };
  });
  return { role: 'tool', content };
}

function errorText(value: string): ToolResultOutput {
  return { type: 'error-text', value };
}

function keepExecuted(result: ExecuteToolResult, executed: Map<string, ToolResultOutput>): void {
  if (result.kind === 'ok' || result.kind === 'error') {
    executed.set(result.outputId, result.modelOutput ?? defaultModelOutput(result.output));
  }
}

/** The first client-side result each call got, by update (accepted by the validator) or signal. */
async function keepClientResult(
  event: HistoryEvent,
  decode: <T>(payloads: Payload[] | null | undefined) => Promise<T>,
  clientResults: Map<string, ToolResultSubmission>,
): Promise<void> {
  const update = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
  const signal = event.workflowExecutionSignaledEventAttributes;
  let payloads: Payload[] | null | undefined;
  if (update?.name === toolResultUpdate.name) payloads = update.args?.payloads;
  else if (signal?.signalName === toolResultSignal.name) payloads = signal.input?.payloads;
  else return;
  const submission = await decode<ToolResultSubmission>(payloads).catch(() => undefined);
  if (typeof submission?.toolCallId === 'string' && !clientResults.has(submission.toolCallId)) {
    clientResults.set(submission.toolCallId, submission);
  }
}

/** The activity type a local activity marker names (Temporal's core records it as plain JSON, never encoded). */
function localActivityType(payload: Payload | undefined): string | undefined {
  if (!payload?.data) return undefined;
  try {
    const data = JSON.parse(Buffer.from(payload.data).toString('utf8')) as { activity_type?: unknown };
    return typeof data.activity_type === 'string' ? data.activity_type : undefined;
  } catch {
    return undefined;
  }
}

function closedAs(event: HistoryEvent | undefined): ClosedAs | undefined {
  if (!event) return undefined;
  if (event.workflowExecutionCompletedEventAttributes) return 'completed';
  if (event.workflowExecutionFailedEventAttributes) return 'failed';
  if (event.workflowExecutionCanceledEventAttributes) return 'cancelled';
  if (event.workflowExecutionTerminatedEventAttributes) return 'terminated';
  if (event.workflowExecutionTimedOutEventAttributes) return 'timed-out';
  if (event.workflowExecutionContinuedAsNewEventAttributes) return 'continued-as-new';
  return undefined;
}
