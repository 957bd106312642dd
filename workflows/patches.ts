import { RUN_STREAM_PATCH } from '../src/protocol/index.js';
import { RUN_PROTOCOL_PATCH } from '../src/protocol/run-protocol.js';

/**
 * Every patch id the agent loop passes to `patched()`. A run whose history predates a patch replays without its
 * marker and keeps the released behaviour; new runs take the new one. See docs/upgrading.md for when a change needs
 * a patch and how a patch is retired. Never reuse or rename an id.
 */
export const PATCHES = {
  /** 0.4.0: the run protocol 4 (`workflows/protocol.ts`), decided once per run by its first execution. */
  v0_4: RUN_PROTOCOL_PATCH,
  /**
   * v0.2.0: at most `toolConcurrency` tool activities of one step run at once (v0.1.0 scheduled every call of a step
   * at once, and a response with thousands of calls exceeded Temporal's 2,000 pending activities).
   */
  boundedToolConcurrency: 'durable-agent.bounded-tool-concurrency',
  /**
   * v0.2.0, decided once at the start of a run: what clients send is bounded and bound to what they saw. A decision
   * must echo its request's token; decisions for requests not made yet are kept only when the agent allows early
   * decisions (at most 64); decision fields and signalled tool results are size-bounded. v0.1.0 accepted any
   * decision by tool-call id, kept every early one, and any tool result a signal carried.
   */
  boundedClientInput: 'durable-agent.bounded-client-input',
  /**
   * v0.2.0: continue-as-new measures the UTF-8 bytes of the exact next input, and leaves the run's original input
   * out of it (v0.1.0 measured the continuation in UTF-16 units and carried the input again).
   */
  continueAsNewBytes: 'durable-agent.continue-as-new-bytes',
  /**
   * v0.3.0: a call whose checked options say `local: true` runs its tool as a local activity. Only calls carrying the
   * new field take this path, so earlier histories replay unchanged; the patch covers a rolling deploy, where an
   * older workflow worker scheduled a regular activity for a call a newer `generate` marked local.
   */
  localTools: 'durable-agent.local-tools',
  /**
   * v0.4.0: MCP questions are asked by update (`elicitationAskUpdate`), held by the run and answered as a value. Where
   * a history could replay differently, the patch gates it: a call waiting after `elicitation-pending` also answers
   * `cancel` when its question expires (v0.3.0 left that to a detached timer); a finished call's waiting questions
   * are dropped; a signalled question is held to the update's rules (running call, id bound to content) and gets a
   * token; and continue-as-new carries no answer records. Runs of v0.3.0 waiting on a question keep the old wait.
   */
  elicitationUpdate: 'durable-agent.elicitation-update',
  /**
   * v0.4.0, decided once at the start of a run and carried over continue-as-new: the run has one stream
   * (`@temporalio/workflow-streams`) with its events and tool progress, which clients long-poll; tool activities
   * publish progress to it with a per-call token instead of the progress signal. A run started before keeps the
   * events query as the only way to watch it and the progress signal, in every execution.
   */
  runStream: RUN_STREAM_PATCH,
  /**
   * v0.4.0: a run that ends (completed, failed, cancelled) records its final event log and state once, in its memo
   * (`workflows/final-record.ts`), so that a client reads them with no worker. Runs that ended on earlier code have
   * no such command in their history.
   */
  finalEventRecord: 'durable-agent.final-event-record',
  /**
   * v0.4.0, decided at the start of a run's first execution (before `describeAgent`, like `modelDeltas`): the first
   * model call waits for the listings at most the listing budget (`MCP_LIST_BUDGET_MS`, or the agent's `listBudget`), and a server still listing then
   * is recorded when it answers, offered from the next model call on (`BudgetedMcpListings` in workflows/mcp.ts).
   * Late listings still in flight are cancelled, and awaited, before the run ends and (after one more budget)
   * before it continues as new. Runs started before wait for every server, as v0.3.0 did.
   */
  mcpListBudget: 'durable-agent.mcp-list-budget',
  /**
   * v0.4.0, decided at the start of each execution of a run with a stream (a run upgraded mid-way streams from its
   * next continue-as-new; checked before `describeAgent`, since a patch first checked right after a local activity
   * can be replayed in an earlier workflow task than the one that recorded it): a step of a run with a stream, whose
   * agent and run did not turn streaming off, gives its `generate` input a `streamToken` (a seeded uuid) and the
   * batch interval, so the activity streams the model call and publishes its pieces on the stream's `deltas` topic;
   * the run takes them only with the running step's token, from its newest attempt, with a `reset-step` before a
   * newer attempt's first piece. Earlier histories have no token in their `generate` inputs and no uuid drawn.
   */
  modelDeltas: 'durable-agent.model-deltas',
  /**
   * v0.4.0, decided at the start of each execution: a person's answer (an approval, or a client-side tool's result,
   * by update or signal) to a call the run does not know yet, sent while a model call is in flight, is held until
   * the call's result is in and judged then (`workflows/model-call-gate.ts`). A worker that replays a run hands it
   * such an answer in the same activation as the model result that asked for it, before that result; judged at once,
   * it was refused or dropped. An accepted update leaves events in history a refused one did not, hence the patch.
   */
  answersAfterModelCall: 'durable-agent.answers-after-model-call',
  /**
   * 0.4.0, decided at the start of each execution (before `describeAgent`, like `modelDeltas`): what an inbox needs
   * of a run. (1) When the worker found durable-agent's search attributes in the namespace (recorded in the agent's
   * description as `searchAttributes`), the run upserts its agent, user and conversation once, and what it waits for
   * (`DurableAgentWaiting`, `DurableAgentWaitingSince`) whenever that changes (`workflows/waiting-attributes.ts`).
   * (2) An MCP answer flagged `requireAuthorization` (sent by someone other than the run's user) is checked by the
   * agent's `authorizeDecision` hook (a local activity) before it applies. Executions without the marker upsert
   * nothing and refuse flagged answers in the validator; a run upgraded mid-way publishes from its next execution only
   * if its description says so (descriptions recorded earlier do not).
   */
  inbox: 'durable-agent.inbox',
  /**
   * v0.4.0, decided at the start of each execution of a run that streams (`modelDeltas`): a poll of the run's stream
   * records when a watcher last polled in the run's memo (`WATCHED_MEMO_KEY`; at most once per `WATCHED_RENEW_MS`),
   * and each `generate` input asks its attempt to publish only while that is fresh (`streamWhenWatched`): a step
   * nobody watches costs no signal and no workflow task per batch. Executions without the marker record no memo
   * change and their steps publish every batch, as before.
   */
  watchedDeltas: 'durable-agent.watched-deltas',
} as const;
