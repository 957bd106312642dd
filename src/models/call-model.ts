import type { JSONSchema7, SharedV4ProviderMetadata, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { FinishReason, ModelMessage, Tool } from 'ai';
import { resolveLanguageModel } from 'ai/internal';
import { callModelObserved } from './call-model-observed.js';
import { classifyModelError, isAbortError } from './classify-model-error.js';
import { toModelCallResult } from './model-response.js';
import { providerCallOptions } from './provider-call-options.js';
import { readModelStream, type ModelDeltaListener } from './stream-response.js';
import type { Usage } from '../protocol/activity-io.js';
import type { ResolvedLanguageModel } from './provider-registry.js';
import { modelCallTelemetry } from '../telemetry/model-call-telemetry.js';
import { TELEMETRY_OFF, telemetryWhenUnobserved } from './unobserved-telemetry.js';

export type { ModelDelta, ModelDeltaListener } from './stream-response.js';

// The activity that calls the model also classifies its failures; both live behind this one import.
export { classifyModelError, isAbortError, ModelFailureType } from './classify-model-error.js';

/** A tool the model may call, given as a JSON Schema. It has no `execute`: the durable runtime runs tools itself. */
export interface FunctionToolSpec {
  kind?: 'function';
  name: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: JSONSchema7;
  /** Provider-specific options of the tool definition (e.g. `{ openai: { strict: true } }`), passed through. */
  providerOptions?: SharedV4ProviderOptions;
}

/**
 * A provider tool (`openai.tools.webSearch()` and the like), passed to the model unchanged. The provider executes
 * it; its calls and results stay inside the assistant message and never appear in {@link ModelCallResult.toolCalls}.
 */
export interface ProviderToolSpec {
  kind: 'provider';
  /** The key the tool is registered under (what the provider expects, e.g. `web_search`). */
  name: string;
  /** The AI SDK provider tool object (`type: 'provider'`), handed to the SDK unchanged. */
  providerTool: Tool | { type: 'provider'; id: string; args?: Record<string, unknown> };
}

/** A tool offered to the model for one call. */
export type ToolSpec = FunctionToolSpec | ProviderToolSpec;

/** How the model may use tools on this call. */
export type ModelToolChoice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: string };

/** Input of {@link callModel}. */
export interface CallModelOptions {
  /** A resolved model object (see `ProviderRegistry.resolveLanguageModel`); strings are refused, not guessed. */
  model: ResolvedLanguageModel;
  /** System prompt. */
  system?: string;
  /** The transcript so far. System messages inside it are allowed. */
  messages: ModelMessage[];
  tools?: ToolSpec[];
  toolChoice?: ModelToolChoice;
  /** Fired by Temporal on activity cancellation: it aborts the HTTP request, and the abort reaches Temporal as is. */
  abortSignal?: AbortSignal;
  providerOptions?: SharedV4ProviderOptions;
  /** Extra HTTP headers for this request (HTTP providers only). */
  headers?: Record<string, string>;
  maxOutputTokens?: number;
  temperature?: number;
  /**
   * Streams the call: the provider's `doStream` instead of `doGenerate`, each text, reasoning and tool-input delta
   * reported here as it arrives. The result is the same assembled {@link ModelCallResult}. A listener that throws
   * ends the call with its error (classified like a model failure).
   */
  onDelta?: ModelDeltaListener;
}

/**
 * A client tool call as the model made it, unvalidated: the runtime validates it against the tool's Zod schema and
 * turns mistakes into results the model can read. Calls to unknown tools are returned too.
 */
export interface RawToolCall {
  toolCallId: string;
  toolName: string;
  /** Parsed JSON arguments; the raw arguments text when it was not valid JSON (then `inputParseError` is set). */
  input: unknown;
  /** Why the arguments text could not be parsed as JSON. Absent when it parsed. */
  inputParseError?: string;
}

/** What one model call produced, as plain JSON (it is the `generate` activity's result material). */
export interface ModelCallResult {
  /** The text of the reply ('' when the model only called tools). */
  text: string;
  /** Client tool calls to run (or to refuse); provider-executed calls are not here. */
  toolCalls: RawToolCall[];
  finishReason: FinishReason;
  /** Token usage of this call; 0 where the provider did not report a count. */
  usage: Usage;
  /**
   * The assistant message(s) to append to the transcript: text, reasoning, client tool calls, and provider-executed
   * tool calls with their results. Tool results for client calls are the runtime's to add.
   */
  responseMessages: ModelMessage[];
  providerMetadata?: SharedV4ProviderMetadata;
}

/**
 * Makes exactly one model call: one provider request (`doGenerate`, or `doStream` when `onDelta` is given) built
 * from the AI SDK's own parts, no SDK retries (Temporal owns retries), tools as schemas without `execute`. A call to
 * an unknown tool or with unparsable arguments comes back as a {@link RawToolCall} rather than an error or a silent
 * repair, so the runtime can tell the model what was wrong.
 *
 * Errors: an abort (the signal fired) is rethrown unchanged so Temporal sees the cancellation; everything else is
 * thrown as an `ApplicationFailure` from {@link classifyModelError}.
 */
export async function callModel(options: CallModelOptions): Promise<ModelCallResult> {
  const { model, abortSignal } = options;
  if (typeof model === 'string') {
    // Passing a string to the AI SDK would route it to the global default provider (the Vercel gateway).
    throw new TypeError(
      `callModel needs a model object, got the string '${String(model)}'. Resolve it with ProviderRegistry first.`,
    );
  }
  try {
    // Tracing installed, or someone listening to the SDK's telemetry: the SDK's own call, which reports the spans
    // and events they expect. Otherwise the one provider call, without the SDK's step loop around it.
    // V2/V3 provider models are adapted to the V4 interface, as `generateText` does.
    const provider = resolveLanguageModel(model);
    const telemetry = modelCallTelemetry() ?? telemetryWhenUnobserved();
    if (telemetry !== TELEMETRY_OFF) return await callModelObserved(provider, options, telemetry);
    const call = await providerCallOptions(provider, options);
    if (!options.onDelta) return await toModelCallResult(provider, call, await provider.doGenerate(call.callOptions));
    const { stream } = await provider.doStream({ ...call.callOptions, includeRawChunks: false });
    return await toModelCallResult(provider, call, await readModelStream(stream, options.onDelta));
  } catch (error) {
    // The signal's own reason (what Temporal put there), even when the provider wrapped it mid-stream.
    if (isAbortError(error, abortSignal)) throw abortSignal?.aborted ? (abortSignal.reason as unknown) : error;
    throw classifyModelError(error);
  }
}
