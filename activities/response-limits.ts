import type { RawToolCall } from '../src/models/call-model.js';

/**
 * Splits a response's tool calls at the per-step cap, so one response can never schedule more activities than the
 * run can hold: calls past it get an error result instead of running. (Repeated ids were already made unique by
 * the model layer, see `uniqueToolCallIds`.)
 */
export function capToolCalls(calls: RawToolCall[], cap: number): { runnable: RawToolCall[]; overflow: RawToolCall[] } {
  return { runnable: calls.slice(0, cap), overflow: calls.slice(cap) };
}

/** The error result of a call past the per-step cap. */
export function overflowMessage(total: number, cap: number): string {
  return (
    `Too many tool calls in one step: the model made ${total} calls, and at most ${cap} run per step. ` +
    'This call was not run; make fewer calls at once, and repeat this one in a later step if it is still needed.'
  );
}
