import { getGlobalLogger } from '../logger.js';
import type { AgentRef, AgentToolHooks } from './agent-hooks.js';
import { buildToolErrorResult, type ToolErrorResult } from './error-result.js';
import { ToolDeniedError } from './errors/tool-denied-error.js';
import { encodeDefault, encodeToolError, encodeToolOutput } from './model-output.js';
import type { AnyTool, ToolCheckpoint, ToolExecuteOptions, ToolHookOnEndResult, ToolResultOutput } from './tool.js';
import { validateToolOutput } from './validate-output.js';

/** Input of {@link runToolPipeline}. */
export interface RunToolPipelineInput {
  tool: AnyTool;
  /** Arguments already checked by `checkToolCall` (its `valid.args`). */
  args: unknown;
  /** The model's tool-call id. */
  toolCallId: string;
  options: ToolExecuteOptions;
  agent?: AgentRef;
  agentHooks?: AgentToolHooks;
  /**
   * Called with every value a streaming tool yields, as soon as it is validated, with `seq` counting from 1 (or
   * from the resumed checkpoint). Awaited: the durable runtime heartbeats the checkpoint here.
   */
  onPreliminary?: (value: unknown, seq: number) => void | Promise<void>;
  /** The last checkpoint of a previous attempt; becomes `options.checkpoint` and continues the `seq` count. */
  resumeFrom?: ToolCheckpoint;
}

/**
 * How a tool call ended, as data the runtime can record. `ok` carries the (validated) output; `recoveredFrom` is
 * set when an `onToolError` hook replaced a failure. `error` carries the payload the model sees. `denied` means a
 * `ToolDeniedError` must end the whole run.
 */
export type ToolPipelineOutcome =
  | { kind: 'ok'; output: unknown; modelOutput: ToolResultOutput; recoveredFrom?: ToolErrorResult }
  | { kind: 'error'; output: ToolErrorResult; modelOutput: ToolResultOutput }
  | { kind: 'denied'; error: ToolDeniedError };

const UNNAMED_AGENT: AgentRef = { name: 'agent' };

/**
 * Runs one tool call with its hooks and validation. No I/O of its own: the durable runtime calls it from the tool
 * activity, and it works the same in-process.
 *
 * Success: tool `onStart` → agent `onToolStart` → `execute` → output validation → tool `onEnd` → agent
 * `onToolEnd`; an own `output` returned by an end hook replaces the result (agent over tool) and is validated
 * again. Failure: tool `onEnd` (at most once per call, even if it already ran) → agent `onToolError` → agent
 * `onToolEnd`, and the model gets the error payload. Cancellation is not a tool failure: when the abort signal
 * has fired, the error is rethrown so the activity ends as cancelled.
 *
 * @throws for a client-side tool (no `execute`): its result comes from the caller, not from here.
 */
export async function runToolPipeline(input: RunToolPipelineInput): Promise<ToolPipelineOutcome> {
  const { tool, args, toolCallId, agentHooks } = input;
  const resume = input.resumeFrom ?? input.options.checkpoint;
  const options = resume && !input.options.checkpoint ? { ...input.options, checkpoint: resume } : input.options;
  const agent = input.agent ?? UNNAMED_AGENT;
  const execute = tool.execute;
  if (typeof execute !== 'function') {
    throw new Error(`Tool '${tool.name}' is client-side (it has no execute function); the caller submits its result.`);
  }
  // Which end hooks already ran, so the failure path never runs one a second time.
  const ended = { tool: false, agent: false };

  try {
    options.abortSignal?.throwIfAborted();
    await tool.hooks?.onStart?.({ tool, args, options });
    await agentHooks?.onToolStart?.({ agent, tool, context: options, args, options });

    const result = execute(args, options);
    const settled = isAsyncIterable(result) ? result : await result;
    let output = isAsyncIterable(settled)
      ? await drain(settled, input, options, resume)
      : await validateToolOutput(tool, settled);
    // A tool that swallowed its abort and returned anyway did not succeed: the call was cancelled.
    options.abortSignal?.throwIfAborted();

    ended.tool = true;
    const toolOverride = ownOutput(await tool.hooks?.onEnd?.({ tool, args, output, error: undefined, options }));
    if (toolOverride) output = toolOverride.output;
    ended.agent = true;
    const agentOverride = ownOutput(
      await agentHooks?.onToolEnd?.({ agent, tool, output, error: undefined, context: options, options }),
    );
    if (agentOverride) output = agentOverride.output;
    if (toolOverride || agentOverride) output = await validateToolOutput(tool, output);

    return { kind: 'ok', output, modelOutput: await encodeToolOutput(tool, output, args, toolCallId) };
  } catch (error) {
    if (options.abortSignal?.aborted) throw error;
    return await handleFailure(error, input, options, agent, ended);
  }
}

/**
 * Drains a streaming result: every yield is validated and reported, the last one is the result. A resumed tool
 * that has nothing more to yield finishes with its checkpoint value.
 */
async function drain(
  iterable: AsyncIterable<unknown>,
  input: RunToolPipelineInput,
  options: ToolExecuteOptions,
  resume: ToolCheckpoint | undefined,
): Promise<unknown> {
  let seq = resume?.seq ?? 0;
  let last: { value: unknown } | undefined;
  // for-await calls the generator's return() when we throw, so its finally blocks run.
  for await (const item of iterable) {
    if (options.abortSignal?.aborted) throw options.abortSignal.reason;
    const value = await validateToolOutput(input.tool, item);
    seq += 1;
    last = { value };
    // Reported at once rather than when the next value arrives: the checkpoint must not lag a step behind.
    await input.onPreliminary?.(value, seq);
  }
  return last ? last.value : resume?.value;
}

async function handleFailure(
  error: unknown,
  input: RunToolPipelineInput,
  options: ToolExecuteOptions,
  agent: AgentRef,
  ended: { tool: boolean; agent: boolean },
): Promise<ToolPipelineOutcome> {
  const { tool, args, toolCallId, agentHooks } = input;
  const payload = buildToolErrorResult(error, toolCallId, tool.name);
  const asError = error instanceof Error ? error : new Error(payload.message);
  let denial = ToolDeniedError.isInstance(error) ? error : undefined;

  // A hook failing while we handle a failure must not hide it; only a denial or a cancellation changes course.
  const guard = async <T>(hook: () => T | Promise<T>): Promise<T | undefined> => {
    try {
      return await hook();
    } catch (hookError) {
      if (options.abortSignal?.aborted) throw hookError;
      if (ToolDeniedError.isInstance(hookError)) denial ??= hookError;
      else
        getGlobalLogger().error(`A hook failed while handling an error of tool '${tool.name}'`, { error: hookError });
      return undefined;
    }
  };

  if (!ended.tool) {
    ended.tool = true;
    await guard(() => tool.hooks?.onEnd?.({ tool, args, output: undefined, error: asError, options }));
  }
  const recovery = ownOutput(
    await guard(() =>
      agentHooks?.onToolError?.({ agent, tool, args, error: asError, originalError: error, context: options, options }),
    ),
  );
  if (!ended.agent) {
    ended.agent = true;
    await guard(() =>
      agentHooks?.onToolEnd?.({ agent, tool, output: undefined, error: asError, context: options, options }),
    );
  }

  if (denial) return { kind: 'denied', error: denial };
  if (recovery) {
    const modelOutput = await guard(() => encodeToolOutput(tool, recovery.output, args, toolCallId));
    return {
      kind: 'ok',
      output: recovery.output,
      modelOutput: modelOutput ?? encodeDefault(recovery.output),
      recoveredFrom: payload,
    };
  }
  return { kind: 'error', output: payload, modelOutput: encodeToolError(payload) };
}

/** `{ output }` when a hook returned an object with an own `output` property (even `undefined`), else undefined. */
function ownOutput(value: unknown): { output: unknown } | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, 'output')) return undefined;
  return { output: (value as ToolHookOnEndResult).output };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
