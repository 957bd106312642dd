import {
  DEFAULT_DELTA_INTERVAL_MS,
  MAX_DELTA_INTERVAL_MS,
  MIN_DELTA_INTERVAL_MS,
  type AgentDescription,
  type AgentRunInput,
  type GenerateInput,
  type GenerateStreaming,
  type RunRef,
  type TranscriptDelta,
  type TranscriptMark,
} from '../src/protocol/index.js';
import type { AgentRunState } from './run-state.js';

/** What a step's model call follows on: the previous step's tool message and the latest recorded response. */
export interface PreviousStep {
  delta?: TranscriptDelta | undefined;
  mark?: TranscriptMark | undefined;
}

/**
 * The one place a step's `generate` input is built, by the run's protocol: protocol 4 says whether and how the step
 * streams (opening the step on the run's stream, which draws its token); earlier protocols never stream.
 */
export function generateInput(
  state: AgentRunState,
  input: AgentRunInput,
  description: AgentDescription,
  run: RunRef,
  step: number,
  previous: PreviousStep,
): GenerateInput {
  const mcp = state.listingRefs();
  const base = {
    agentName: description.agentName,
    run,
    step,
    messageCount: state.messages.length,
    ...(previous.delta ? { delta: previous.delta } : {}),
    ...(previous.mark ? { mark: previous.mark } : {}),
    ...(mcp.length > 0 ? { mcp } : {}),
  };
  if (state.protocol < 4) return { ...base, argsFromCall: true };
  const stream = streamingOf(state, input, description, step);
  return { ...base, protocol: 4, ...(stream ? { stream } : {}) };
}

/**
 * How a step streams its model call, unless the run's `streaming` option or the agent's turns it off (the run's
 * wins). The run's option comes from whoever started it: anything but a boolean or an object is ignored, the
 * interval is clamped.
 */
function streamingOf(
  state: AgentRunState,
  input: AgentRunInput,
  description: AgentDescription,
  step: number,
): GenerateStreaming | undefined {
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
  const stream = state.stream!;
  const watched = (step === 1 && watchedFromStart(input)) || stream.watchedLately();
  const live = state.live ? { live: state.live.runId } : {};
  return { token: stream.openStep(step), intervalMs, watched, ...live };
}

/** The run's starter said it watches from the start (`streaming: { watched: true }`, as `streamText` does). */
function watchedFromStart(input: AgentRunInput): boolean {
  const run = input.streaming;
  return typeof run === 'object' && run !== null && run.watched === true && input.continuation === undefined;
}
