import type { JSONSchema7, SharedV4ProviderMetadata, SharedV4ProviderOptions } from '@ai-sdk/provider';
import {
  generateText,
  InvalidToolInputError,
  jsonSchema,
  NoSuchToolError,
  stepCountIs,
  tool,
  wrapLanguageModel,
  type FinishReason,
  type ModelMessage,
  type Tool,
  type ToolSet,
} from 'ai';
import { classifyModelError, isAbortError } from './classify-model-error.js';
import { uniqueToolCallIds } from './unique-tool-call-ids.js';
import type { Usage } from '../protocol/activity-io.js';
import type { ResolvedLanguageModel } from './provider-registry.js';
import { modelCallTelemetry } from '../telemetry/model-call-telemetry.js';
import { telemetryWhenUnobserved } from './unobserved-telemetry.js';

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
 * Makes exactly one model call: one step, provider retries off (`maxRetries: 0`, Temporal owns retries), tools as
 * schemas without `execute`. A call to an unknown tool or with unparsable arguments comes back as a
 * {@link RawToolCall} rather than an error or a silent repair, so the runtime can tell the model what was wrong.
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
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: uniqueToolCallIds }),
      instructions: options.system,
      messages: options.messages,
      allowSystemInMessages: true,
      tools: buildToolSet(options.tools ?? []),
      toolChoice: options.toolChoice,
      stopWhen: stepCountIs(1),
      maxRetries: 0,
      abortSignal,
      providerOptions: options.providerOptions,
      headers: options.headers,
      maxOutputTokens: options.maxOutputTokens,
      temperature: options.temperature,
      // Off unless tracing is installed in this process; then the call is a span under the activity's span. Without
      // it, the SDK's own telemetry is skipped outright when nothing listens (see telemetryWhenUnobserved).
      telemetry: modelCallTelemetry() ?? telemetryWhenUnobserved(),
    });

    const toolCalls: RawToolCall[] = result.toolCalls
      .filter((call) => !call.providerExecuted)
      .map((call) => toRawToolCall(call.toolCallId, call.toolName, call.input, call.invalid ? call.error : undefined));

    return toPlainJson({
      text: result.text,
      toolCalls,
      finishReason: result.finishReason,
      usage: {
        inputTokens: result.usage.inputTokens ?? 0,
        outputTokens: result.usage.outputTokens ?? 0,
        totalTokens: result.usage.totalTokens ?? (result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0),
      },
      // The SDK adds a tool message with an error for each invalid call; the runtime writes its own results.
      responseMessages: result.response.messages.filter((message) => message.role !== 'tool'),
      ...(result.providerMetadata ? { providerMetadata: result.providerMetadata } : {}),
    });
  } catch (error) {
    if (isAbortError(error, abortSignal)) throw error;
    throw classifyModelError(error);
  }
}

/**
 * The AI SDK tool set for one call. Built with `Object.fromEntries` so a tool named `__proto__` is an own key, not
 * a prototype change. Function tools get a JSON Schema without a validator: the SDK must not reject or repair
 * arguments, the runtime validates them against the real Zod schema.
 */
function buildToolSet(specs: ToolSpec[]): ToolSet {
  return Object.fromEntries(
    specs.map((spec): [string, Tool] =>
      spec.kind === 'provider'
        ? [spec.name, spec.providerTool as Tool]
        : [
            spec.name,
            tool({
              description: spec.description,
              inputSchema: jsonSchema(spec.inputSchema),
              ...(spec.providerOptions ? { providerOptions: spec.providerOptions } : {}),
            }),
          ],
    ),
  );
}

function toRawToolCall(toolCallId: string, toolName: string, input: unknown, error: unknown): RawToolCall {
  const call: RawToolCall = { toolCallId, toolName, input };
  if (InvalidToolInputError.isInstance(error)) {
    // With a validator-free schema, the only input error is text that is not JSON: hand back the raw text.
    call.input = error.toolInput;
    // The innermost message ("Unexpected end of JSON input") reads better than the SDK's wrapper text.
    const parseError = error.cause instanceof Error ? error.cause : error;
    call.inputParseError = parseError.cause instanceof Error ? parseError.cause.message : parseError.message;
  } else if (NoSuchToolError.isInstance(error) && typeof input === 'string' && !parsesAsJson(input)) {
    // Unknown tool and unparsable text: the SDK kept the raw text; say so, as for a known tool.
    call.inputParseError = 'Tool arguments are not valid JSON.';
  }
  return call;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A JSON round trip: drops `undefined` fields and turns anything exotic into JSON, so what the activity returns is
 * exactly what Temporal will store and the workflow will read back.
 */
function toPlainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
