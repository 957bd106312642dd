import {
  ApplicationFailure,
  ContinueAsNew,
  allHandlersFinished,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { createActivities } from '../activities/index.js';
import {
  DEFAULT_DELTA_INTERVAL_MS,
  FailureType,
  MAX_DELTA_INTERVAL_MS,
  MIN_DELTA_INTERVAL_MS,
  initialMessages,
  refusedPayloadOf,
  type AgentDescription,
  type AgentRunInput,
  type AgentRunOutput,
  type RunRef,
  type StopReason,
  type TranscriptDelta,
  type TranscriptMark,
} from '../src/protocol/index.js';
import { generateActivityOptions } from './activity-options.js';
import { continueAsNewIfPossible, shouldContinueAsNew } from './continuation.js';
import { recordFinalEvents } from './final-record.js';
import { registerHandlers } from './handlers.js';
import { BudgetedMcpListings, listMcpServers } from './mcp.js';
import { PATCHES } from './patches.js';
import { ModelCallGate } from './model-call-gate.js';
import { AgentRunState } from './run-state.js';
import { RunStream } from './run-stream.js';
import { settleToolCalls } from './tool-calls.js';
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
  const refused = refusedPayloadOf(input);
  if (refused) {
    // The worker's codec could not read the run's input (see docs/payload-codec.md): nothing to run.
    throw ApplicationFailure.create({
      type: FailureType.InputRefused,
      nonRetryable: true,
      message: `The worker's payload codec refused the run's input (${refused.code}): ${refused.message}`,
    });
  }
  // Decided once per run, before the first signal is handled: a run started on v0.1.0 keeps its rules.
  const state = new AgentRunState(input, { bound: patched(PATCHES.boundedClientInput) });
  registerHandlers(state);
  // Decided at the start of each execution, before any handler can run (handlers read it).
  state.modelCall = new ModelCallGate(patched(PATCHES.answersAfterModelCall));
  // Decided by the first execution and carried: a run started before 0.4.0 never gets a stream.
  if (input.continuation ? input.continuation.stream !== undefined : patched(PATCHES.runStream)) {
    state.attachStream(new RunStream(input.continuation?.stream, (progress) => state.showProgress(progress)));
  }
  // The first execution's budgeted listings (`PATCHES.mcpListBudget`), while any is late.
  let listings: BudgetedMcpListings | undefined;
  // Decided at the start of each execution, in its first workflow task: a patch first checked after the
  // `describeAgent` local activity may be replayed in an earlier task than the one that recorded its marker.
  const modelDeltas = state.stream !== undefined && patched(PATCHES.modelDeltas);
  // Decided with it: its steps publish only while watched, and polls say when someone watches.
  const watchedDeltas = modelDeltas && patched(PATCHES.watchedDeltas);
  if (watchedDeltas) state.stream!.announceWatchers();
  const listBudget = input.continuation === undefined && patched(PATCHES.mcpListBudget);
  const inbox = patched(PATCHES.inbox);
  state.checksAnswers = inbox;
  try {
    const { workflowId, runId } = workflowInfo();
    const run: RunRef = { workflowId, runId };
    const description =
      input.continuation?.description ?? (await describe(state, input, run, listBudget, (l) => (listings = l)));
    state.approvals.setEarlyDecisions(description.approval.earlyDecisions === true);
    state.authorizesDecisions = description.approval.authorize === true;
    if (inbox && description.searchAttributes === true) publishWaiting(state, description);
    const { generate } = proxyActivities<Activities>(generateActivityOptions(description));
    const maxSteps = input.maxSteps ?? description.maxSteps;
    let stopReason: StopReason = 'max-steps';
    let delta: TranscriptDelta | undefined;
    // The worker that described the agent cached the first messages under `seedId`: the first model call says which
    // copy the run recorded (an activity input only; runs described before v0.3.0 have no seed and send no mark).
    let mark: TranscriptMark | undefined =
      !input.continuation && description.seedId ? { at: 0, responseId: description.seedId } : undefined;
    while (state.steps.length < maxSteps) {
      const step = state.startStep();
      state.unsentDelta = undefined;
      const streaming = modelDeltas ? streamingOf(input, description) : undefined;
      const streamToken = streaming ? state.stream!.openStep(step) : undefined;
      let generated: Awaited<ReturnType<typeof generate>>;
      state.modelCall.begin();
      try {
        generated = await generate({
          agentName: description.agentName,
          run,
          step,
          messageCount: state.messages.length,
          ...(delta ? { delta } : {}),
          ...(mark ? { mark } : {}),
          ...(state.listingRefs().length > 0 ? { mcp: state.listingRefs() } : {}),
          argsFromCall: true,
          ...(streaming ? { streamToken, streamIntervalMs: streaming.intervalMs } : {}),
          ...(streaming && watchedDeltas ? watchedOf(state.stream!, step === 1 && watchedFromStart(input)) : {}),
        });
      } finally {
        // Retries of the activity happened inside the await: from here no attempt of this step may publish.
        if (streamToken !== undefined) state.stream!.closeStep(step);
        // What follows up to `settleToolCalls` opening the step's requests runs synchronously: held answers are
        // judged after it (their conditions are checked once the activation's jobs and microtasks are done).
        state.modelCall.end();
      }
      mark = { at: state.messages.length, responseId: generated.responseId };
      const args = state.recordResponse(step, generated);
      const settled = await settleToolCalls(
        {
          state,
          description,
          run,
          step,
          messageCount: state.messages.length,
          mark,
          approvalTimeoutMs: approvalTimeout(input, description),
        },
        generated.toolCalls,
        args,
      );
      delta = settled.delta;
      state.finishStep(step, generated, settled);
      state.unsentDelta = delta;
      if (settled.denied) throw toolDenied(settled.denied);
      if (generated.toolCalls.length === 0) {
        stopReason = 'completed';
        break;
      }
      // A server said its tools changed (`tools/list_changed`): the next model call sees its new listing.
      const stale = [...new Set([...(generated.staleMcpServers ?? []), ...settled.staleMcpServers])];
      if (stale.length > 0) await listMcpServers(state, description, run, stale);
      if (state.steps.length < maxSteps && shouldContinueAsNew(input)) {
        // No listing may run across continue-as-new: a late one gets one more budget, then is cancelled.
        await listings?.settleBeforeContinuing();
        await continueAsNewIfPossible(state, input, description);
      }
    }
    await listings?.settle();
    return await finish(state, stopReason);
  } catch (err) {
    // A failed or cancelled run leaves no listing running (nothing is scheduled when none is late).
    if (!(err instanceof ContinueAsNew)) await listings?.settle();
    ended(state, err);
    throw err;
  }
}

/**
 * Records what the run needs to know about its agent (a local activity) and the run's first messages, then lists
 * the agent's MCP servers (an activity per server): since `PATCHES.mcpListBudget` within the listing budget, with
 * late listings handed to `onLate` to settle; before, waiting for every server.
 */
async function describe(
  state: AgentRunState,
  input: AgentRunInput,
  run: RunRef,
  /** `PATCHES.mcpListBudget`, decided at the start of the execution. */
  listBudget: boolean,
  onLate: (listings: BudgetedMcpListings) => void,
): Promise<AgentDescription> {
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
  if (servers.length > 0 && listBudget) {
    const listings = new BudgetedMcpListings(state, description, run);
    onLate(listings);
    await listings.list(servers);
  } else if (servers.length > 0) {
    await listMcpServers(state, description, run, servers);
  }
  return description;
}

/** Publishes the run's identity and, from now on, what it waits for as search attributes (`PATCHES.inbox`). */
function publishWaiting(state: AgentRunState, description: AgentDescription): void {
  const attributes = new WaitingAttributes(state);
  attributes.identify(description.agentName, state.run);
  state.publishWaiting(attributes);
}

/**
 * Whether a step streams its model call (in a run with a stream, on code with `PATCHES.modelDeltas`), and at what
 * batch interval: unless the run's `streaming` option or the agent's turns it off (the run's wins). The run's
 * option comes from whoever started it: anything but a boolean or an object is ignored, the interval is clamped.
 */
function streamingOf(input: AgentRunInput, description: AgentDescription): { intervalMs: number } | undefined {
  const given =
    typeof input.streaming === 'boolean' || typeof input.streaming === 'object' ? input.streaming : undefined;
  // An object without an interval (`{ watched: true }`, as streamText sends) says who watches, not whether to
  // stream: the agent's option decides that.
  const run = typeof given === 'object' && given !== null && given.intervalMs === undefined ? undefined : given;
  const agent = description.streaming;
  if (run === false || run === null || (run === undefined && agent === false)) return undefined;
  const wanted = (typeof run === 'object' ? run.intervalMs : undefined) ?? (agent ? agent.intervalMs : undefined);
  const intervalMs =
    typeof wanted === 'number' && Number.isFinite(wanted)
      ? Math.min(MAX_DELTA_INTERVAL_MS, Math.max(MIN_DELTA_INTERVAL_MS, Math.round(wanted)))
      : DEFAULT_DELTA_INTERVAL_MS;
  return { intervalMs };
}

/** What a streaming step's `generate` input says of watchers (`PATCHES.watchedDeltas`). */
function watchedOf(stream: RunStream, starterWatches: boolean): { streamWhenWatched: true; streamWatched?: true } {
  const watched = starterWatches || stream.watchedLately();
  return { streamWhenWatched: true, ...(watched ? { streamWatched: true as const } : {}) };
}

/** The run's starter said it watches from the start (`streaming: { watched: true }`, as `streamText` does). */
function watchedFromStart(input: AgentRunInput): boolean {
  const run = input.streaming;
  return typeof run === 'object' && run !== null && run.watched === true && input.continuation === undefined;
}

function approvalTimeout(input: AgentRunInput, description: AgentDescription): number | undefined {
  return input.approvalTimeoutMs ?? description.approval.timeoutMs;
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
