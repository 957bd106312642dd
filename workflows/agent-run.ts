import {
  ApplicationFailure,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  FailureType,
  initialMessages,
  refusedPayloadOf,
  type AgentDescription,
  type AgentRunInput,
  type AgentRunOutput,
  type GenerateResult,
  type RunRef,
  type StopReason,
  type TranscriptMark,
} from '../src/protocol/index.js';
import { generateActivityOptions } from './activity-options.js';
import { continueAsNewIfPossible, shouldContinueAsNew } from './continuation.js';
import { recordFinalEvents } from './final-record.js';
import { generateInput, type PreviousStep } from './generate-input.js';
import { registerHandlers } from './handlers.js';
import { listEveryServer } from './legacy/listings.js';
import { BudgetedMcpListings, listMcpServers } from './mcp.js';
import { runProtocol } from './protocol.js';
import { AgentRunState } from './run-state.js';
import { LiveEvents } from './live-events.js';
import { RunStream } from './run-stream.js';
import { settleToolCalls, type SettledStep } from './tool-calls.js';
import { WaitingAttributes } from './waiting-attributes.js';

type Activities = ReturnType<typeof createActivities>;

// A local activity: it runs inside the run's first workflow task (no extra task round trip before the first
// model call) and its result is recorded in history like any activity's.
const { describeAgent } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1s', maximumInterval: '30s', maximumAttempts: 10 },
});

/**
 * The agent loop: describe the agent, then per step one model call and the step's tool calls, until the model
 * answers without tools, the step budget is spent, or the history is long enough to continue as new.
 *
 * Deterministic: every model call and tool execution is an activity, every wait for a person a `condition`, and all
 * the workflow keeps is plain data ({@link AgentRunState}). Activity inputs carry a run reference, a message count
 * and the previous step's tool message with executed outputs as references; the worker keeps the transcript and asks
 * the transcript query for whatever it lacks. So each message is recorded in history once, in the activity result
 * (or the run input) that produced it.
 */
export async function agentRun(input: AgentRunInput): Promise<AgentRunOutput> {
  refuseUnreadableInput(input);
  // The protocol first, before any handler can run or any command is made: handlers and the loop read it.
  const state = new AgentRunState(input, runProtocol(input.continuation));
  registerHandlers(state);
  if (state.protocol >= 4) openStream(state, input);
  const { workflowId, runId } = workflowInfo();
  const loop: Loop = { state, input, run: { workflowId, runId } };
  try {
    const description = input.continuation?.description ?? (await describe(loop));
    const stopReason = await runSteps(loop, configure(state, description));
    await loop.lateListings?.settle();
    const output = await finish(state, stopReason);
    // The run's last events reach its live stream before it closes (watchers end at its terminal event).
    await state.live?.flushed();
    return output;
  } catch (err) {
    // A failed or cancelled run leaves no listing running (nothing is scheduled when none is late).
    if (!(err instanceof ContinueAsNew)) await loop.lateListings?.settle();
    ended(state, err);
    await state.live?.flushed();
    throw err;
  }
}

/** What the loop's steps share. */
interface Loop {
  readonly state: AgentRunState;
  readonly input: AgentRunInput;
  readonly run: RunRef;
  /** The first execution's budgeted listings, while any is late (protocol 4). */
  lateListings?: BudgetedMcpListings;
}

/** The steps, until the model answers without tools or the step budget is spent; continues as new when due. */
async function runSteps(loop: Loop, description: AgentDescription): Promise<StopReason> {
  const { state, input } = loop;
  const { generate } = proxyActivities<Activities>(generateActivityOptions(description));
  const maxSteps = input.maxSteps ?? description.maxSteps;
  let previous: PreviousStep = { mark: seedMark(input, description) };
  while (state.steps.length < maxSteps) {
    const step = state.startStep();
    const generated = await callModel(loop, description, generate, step, previous);
    const mark = { at: state.messages.length, responseId: generated.responseId };
    const settled = await settleStep(loop, description, step, generated, mark);
    previous = { delta: settled.delta, mark };
    if (generated.toolCalls.length === 0) return 'completed';
    // A server said its tools changed (`tools/list_changed`): the next model call sees its new listing.
    const stale = [...new Set([...(generated.staleMcpServers ?? []), ...settled.staleMcpServers])];
    if (stale.length > 0) await listMcpServers(state, description, loop.run, stale);
    if (state.steps.length < maxSteps && shouldContinueAsNew(input)) {
      // No listing may run across continue-as-new: a late one gets one more budget, then is cancelled.
      await loop.lateListings?.settleBeforeContinuing();
      await continueAsNewIfPossible(state, input, description);
    }
  }
  return 'max-steps';
}

/** The step's model call: one `generate` activity (retried by Temporal), its input built by the run's protocol. */
async function callModel(
  loop: Loop,
  description: AgentDescription,
  generate: Activities['generate'],
  step: number,
  previous: PreviousStep,
): Promise<GenerateResult> {
  const { state } = loop;
  state.unsentDelta = undefined;
  // On a live stream on Redis, the events so far go first: watchers see a step's events before the next step's text.
  await state.live?.flushed();
  const request = generateInput(state, loop.input, description, loop.run, step, previous);
  state.modelCall.begin();
  try {
    return await generate(request);
  } finally {
    // Retries of the activity happened inside the await: from here no attempt of this step may publish.
    if (request.protocol === 4 && request.stream) state.stream!.closeStep(step);
    // What follows up to `settleToolCalls` opening the step's requests runs with no command in between: held
    // answers are judged after it (their conditions are checked once the activation's jobs and microtasks are done).
    state.modelCall.end();
  }
}

/** Records the model's response and runs, waits for, or answers its tool calls. A denied tool ends the run. */
async function settleStep(
  loop: Loop,
  description: AgentDescription,
  step: number,
  generated: GenerateResult,
  mark: TranscriptMark,
): Promise<SettledStep> {
  const { state, input, run } = loop;
  const args = state.recordResponse(step, generated);
  const approvalTimeoutMs = input.approvalTimeoutMs ?? description.approval.timeoutMs;
  const messageCount = state.messages.length;
  const context = { state, description, run, step, messageCount, mark, approvalTimeoutMs };
  const settled = await settleToolCalls(context, generated.toolCalls, args);
  state.finishStep(step, generated, settled);
  state.unsentDelta = settled.delta;
  if (settled.denied) throw toolDenied(settled.denied);
  return settled;
}

/**
 * The worker that described the agent cached the first messages under `seedId`: the first model call says which
 * copy the run recorded (an activity input only; runs described before v0.3.0 have no seed and send no mark).
 */
function seedMark(input: AgentRunInput, description: AgentDescription): TranscriptMark | undefined {
  return !input.continuation && description.seedId ? { at: 0, responseId: description.seedId } : undefined;
}

/** The worker's codec could not read the run's input (see docs/payload-codec.md): nothing to run. */
function refuseUnreadableInput(input: AgentRunInput): void {
  const refused = refusedPayloadOf(input);
  if (!refused) return;
  throw ApplicationFailure.create({
    type: FailureType.InputRefused,
    nonRetryable: true,
    message: `The worker's payload codec refused the run's input (${refused.code}): ${refused.message}`,
  });
}

/**
 * Gives a protocol-4 run its stream (carried over continue-as-new): events and tool progress, model deltas of steps
 * that stream, and polls that record in the memo when someone last watched, so unwatched steps publish nothing.
 */
function openStream(state: AgentRunState, input: AgentRunInput): void {
  const stream = new RunStream(input.continuation?.stream, (progress) => state.showProgress(progress));
  state.attachStream(stream);
  stream.announceWatchers();
}

/** What the description tells the run about its agent; the description is returned for the loop. */
function configure(state: AgentRunState, description: AgentDescription): AgentDescription {
  state.approvals.setEarlyDecisions(description.approval.earlyDecisions === true);
  state.authorizesDecisions = description.approval.authorize === true;
  if (state.protocol >= 4 && description.searchAttributes === true) publishWaiting(state, description);
  // The worker publishes live items to Redis: so do the run's events (recorded in the description, so every
  // execution of the run decides the same).
  if (state.protocol >= 4 && description.liveStream === 'redis') state.live = new LiveEvents(state.events);
  return description;
}

/**
 * Records what the run needs to know about its agent (a local activity) and the run's first messages, then lists
 * the agent's MCP servers (an activity per server): on protocol 4 within the listing budget, the late ones kept in
 * `loop.lateListings` to settle; on earlier protocols, waiting for every server.
 */
async function describe(loop: Loop): Promise<AgentDescription> {
  const { state, input, run } = loop;
  state.events.emit({ type: 'run-started', agentName: input.agentName });
  const calledAt = state.clock.ms();
  let description: AgentDescription;
  try {
    description = await describeAgent({ agentName: input.agentName, input: input.input, run: state.run });
  } finally {
    state.clock.holdAt(calledAt);
  }
  if (description.retrieverError) state.events.emit({ type: 'retriever-error', message: description.retrieverError });
  state.begin(description.systemPrompt, initialMessages(input.input));
  state.elicitationTimeoutMs ??= description.mcp?.elicitationTimeoutMs;
  const servers = description.mcp?.servers ?? [];
  if (servers.length === 0) return description;
  if (state.protocol < 4) {
    await listEveryServer(state, description, run, servers);
    return description;
  }
  loop.lateListings = new BudgetedMcpListings(state, description, run);
  await loop.lateListings.list(servers);
  return description;
}

/** Publishes the run's identity and, from now on, what it waits for as search attributes (protocol 4). */
function publishWaiting(state: AgentRunState, description: AgentDescription): void {
  const attributes = new WaitingAttributes(state);
  attributes.identify(description.agentName, state.run);
  state.publishWaiting(attributes);
}

/** The run's result. Waits for update handlers in flight (an approval's caller gets its answer). */
async function finish(state: AgentRunState, stopReason: StopReason): Promise<AgentRunOutput> {
  const text = state.complete(stopReason);
  // Parked stream polls return what they wait for (the last events) and new ones are refused: a poll from an offset
  // the run never reaches would otherwise hold the run open.
  state.stream?.detach();
  await condition(allHandlersFinished);
  recordFinalEvents(state);
  return {
    version: 1,
    text,
    finishReason: state.finishReason,
    stopReason,
    steps: state.steps,
    usage: state.usage,
    approvals: state.approvals.history(),
    messageCount: state.messages.length,
  };
}

/** A tool threw `ToolDeniedError`: the whole run ends with it, code and HTTP status kept. */
function toolDenied(denied: NonNullable<Awaited<ReturnType<typeof settleToolCalls>>['denied']>): ApplicationFailure {
  return ApplicationFailure.create({
    type: FailureType.ToolDenied,
    message: denied.message,
    nonRetryable: true,
    details: [denied],
  });
}

/** Records how the run ended before the error leaves the workflow. Continue-as-new is neither failure nor cancellation. */
function ended(state: AgentRunState, err: unknown): void {
  if (err instanceof ContinueAsNew) return;
  if (isCancellation(err)) state.cancel();
  else state.fail(rootCauseMessage(err), err instanceof ApplicationFailure ? (err.type ?? undefined) : undefined);
  recordFinalEvents(state);
}

/** The innermost cause's message: "Activity task failed" says less than what made the activity fail. */
function rootCauseMessage(err: unknown): string {
  let current: unknown = err;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
