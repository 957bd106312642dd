// Signals, queries and updates of the `agentRun` workflow. Clients and tests import these constants; the
// workflow registers handlers for all of them before its first await.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  ElicitationAsk,
  ElicitationAskOutcome,
  ElicitationRecord,
  ElicitationRequest,
  ElicitationResponse,
  ElicitationStatus,
  McpListingRecord,
  ApprovalDecision,
  ApprovalRecord,
  RunEvent,
  RunState,
  RunStreamTail,
  ToolProgress,
  ToolResultSubmission,
  TranscriptSlice,
} from './index.js';

/** Fire-and-forget approval decision. Duplicates are ignored; a decision arriving before the wait is kept. */
export const approvalSignal = defineSignal<[ApprovalDecision]>('durable-agent.approval');

/**
 * Approval decision with an answer: the validator rejects an unknown tool-call id, one already decided, or a
 * run that is not waiting for it, without touching history. Resolves with the recorded decision.
 */
export const approvalUpdate = defineUpdate<ApprovalRecord, [ApprovalDecision]>('durable-agent.decide-approval');

/** Fire-and-forget result of a client-side tool call. */
export const toolResultSignal = defineSignal<[ToolResultSubmission]>('durable-agent.tool-result');

/** Result of a client-side tool call, validated: the call must be pending. */
export const toolResultUpdate = defineUpdate<void, [ToolResultSubmission]>('durable-agent.submit-tool-result');

/**
 * Progress of a streaming tool, sent by the tool activity (throttled). Applied only while the call runs and only
 * when newer than what the run has, so a retried attempt's repeated yields are not shown twice.
 */
export const toolProgressSignal = defineSignal<[ToolProgress]>('durable-agent.tool-progress');

/** The run's current state: status, step, pending approvals and tool results, running tools. */
export const stateQuery = defineQuery<RunState>('durable-agent.state');

/** Run events with `seq` greater than `after`, at most `limit` of them. */
export const eventsQuery = defineQuery<RunEvent[], [after: number, limit?: number]>('durable-agent.events');

/**
 * Transcript messages `[from, to)` of this execution, with the run context, in pages of about 1 MB; a message larger
 * than a page comes in pieces of its parts, from `fromPart` (see `readTranscript`). Activities read it instead of input.
 */
export const transcriptQuery = defineQuery<TranscriptSlice, [from: number, to?: number, fromPart?: number]>(
  'durable-agent.transcript',
);

/**
 * An MCP server asked a person something during a tool call: the tool activity asks the run once (v0.4.0). The
 * validator refuses, with a code, a question of a call that is not running, one whose id is not its content's, or
 * one over the bounds; the handler records it once per id (a re-issued call asking again changes nothing), lists it
 * as a pending elicitation, and holds the update until it is answered or `holdMs` passes. Resolves with the answer
 * or `{ kind: 'pending' }`.
 */
export const elicitationAskUpdate = defineUpdate<ElicitationAskOutcome, [ElicitationAsk]>(
  'durable-agent.ask-elicitation',
);

/**
 * v0.3.0 (kept for its activities and histories): the tool activity signals its question, then polls
 * {@link elicitationQuery}. The run records it once per id and lists it as a pending elicitation.
 */
export const elicitationRequestSignal = defineSignal<[ElicitationRequest]>('durable-agent.elicitation-request');

/** Fire-and-forget answer to an elicitation. Invalid or duplicate answers are ignored. */
export const elicitationResponseSignal = defineSignal<[ElicitationResponse]>('durable-agent.elicitation-response');

/**
 * An answer to an elicitation, validated before anything is recorded: unknown id, already answered, or content
 * that does not match the requested schema are rejected. Resolves with the recorded answer.
 */
export const elicitationResponseUpdate = defineUpdate<ElicitationRecord, [ElicitationResponse]>(
  'durable-agent.respond-to-elicitation',
);

/** v0.3.0 (kept for its activities): whether one of the run's questions is answered. */
export const elicitationQuery = defineQuery<ElicitationStatus, [id: string]>('durable-agent.elicitation');

/** A listing the run recorded, by server and version (for workers that do not have it cached). */
export const mcpListingQuery = defineQuery<McpListingRecord | null, [server: string, version: string]>(
  'durable-agent.mcp-listing',
);

/**
 * Items of the run's stream from an offset (runs with a stream, since 0.4.0): what a client reads when the run closed
 * before its last poll took them. The stream's own update is the way to watch a running run.
 */
export const runStreamTailQuery = defineQuery<RunStreamTail, [fromOffset: number]>('durable-agent.stream-tail');
