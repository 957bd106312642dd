import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4FinishReason,
  type LanguageModelV4FunctionTool,
  type LanguageModelV4GenerateResult,
  type LanguageModelV4Prompt,
  type LanguageModelV4ProviderTool,
  type LanguageModelV4StreamResult,
  type LanguageModelV4ToolChoice,
  type SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import { ScriptedModelExhaustedError } from './errors/scripted-model-exhausted-error.js';
import {
  estimatePromptTokens,
  estimateTokens,
  lastUserText,
  makeUsage,
  resultToStream,
  sleep,
  type StreamPacing,
} from './local-model-support.js';

/** One tool call a scripted step makes. */
export interface ScriptedToolCall {
  toolName: string;
  /**
   * The arguments. Objects are JSON-encoded; a string is sent as the raw arguments text, unchanged, so a test can
   * script invalid JSON (`'{"city": '`).
   */
  input: unknown;
  /** Default `call_<step>_<index>`: deterministic, so histories and assertions are stable. */
  toolCallId?: string;
}

/**
 * A scripted error as plain data, so a script can cross a process boundary. With `statusCode` it becomes the
 * AI SDK's `APICallError` (what an HTTP provider throws), otherwise a plain `Error`.
 */
export interface ScriptedErrorSpec {
  message: string;
  statusCode?: number;
  /** Response headers, e.g. `{ 'retry-after': '2' }`. */
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  /** Default: true for 408, 409, 429 and 5xx, as the AI SDK decides for HTTP errors. */
  isRetryable?: boolean;
  /** Error name for a plain `Error`. */
  name?: string;
}

/**
 * What the model does on one call. Fields combine: `delayMs` waits first (abortable), then `error` is thrown, or
 * else the reply is `text` and/or `toolCalls` (or raw `content` parts, e.g. provider-executed tool calls). A step
 * with only `delayMs` answers with empty text.
 */
export interface ScriptedReply {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Thrown instead of answering: an `Error` (thrown as is) or a {@link ScriptedErrorSpec}. */
  error?: unknown;
  /** Wait this long before answering (default 0: no timer at all). Aborting the call's signal ends the wait. */
  delayMs?: number;
  /** Raw V4 content parts appended after `text` and `toolCalls`. */
  content?: LanguageModelV4Content[];
  /** Default: `tool-calls` when the step calls tools, else `stop`. */
  finishReason?: LanguageModelV4FinishReason['unified'];
  /** Default: estimates from the prompt and reply sizes (four characters a token). */
  usage?: { inputTokens?: number; outputTokens?: number };
  /** How `doStream` paces this reply: delta size, delay between deltas, a cut after some deltas. */
  stream?: Omit<StreamPacing, 'abortSignal'>;
}

/** A step: a fixed reply, or a function of the request (for replies that depend on what the agent sent). */
export type ScriptedStep = ScriptedReply | ((request: ScriptedRequest) => ScriptedReply | Promise<ScriptedReply>);

/**
 * How a call picks its step. `sequential`: the n-th call gets step n. `assistant-turns`: the step is the number of
 * assistant messages already in the prompt, so the model is stateless — a retried activity, a restarted worker
 * or many concurrent runs of the same script all get the step that matches their transcript.
 */
export type StepSelection = 'sequential' | 'assistant-turns';

/** A request the model received, recorded for assertions. */
export interface ScriptedRequest {
  /** Zero-based index of this call on this model instance. */
  callIndex: number;
  /** The step this call was answered from. */
  stepIndex: number;
  /** The prompt exactly as the AI SDK passed it (system message first, when there is one). */
  prompt: LanguageModelV4Prompt;
  /** Tools as the model saw them (function tools with JSON Schemas, provider tools). */
  tools: Array<LanguageModelV4FunctionTool | LanguageModelV4ProviderTool>;
  /** Names of `tools`, for short assertions. */
  toolNames: string[];
  toolChoice?: LanguageModelV4ToolChoice;
  providerOptions?: SharedV4ProviderOptions;
  /** Text of the last user message ('' when there is none). */
  lastUserText: string;
}

/** Constructor options of {@link ScriptedLanguageModel}. */
export interface ScriptedLanguageModelOptions {
  steps: ScriptedStep[];
  /** Default `scripted`. */
  modelId?: string;
  /** Default `scripted`. */
  provider?: string;
  /** Default `sequential`. */
  stepSelection?: StepSelection;
  /**
   * Default true. `false` keeps {@link ScriptedLanguageModel.requests} empty (calls are still counted), so a
   * long-lived worker answering thousands of calls (a benchmark) does not hold every prompt.
   */
  recordRequests?: boolean;
}

/**
 * A JSON-serializable script: what a test hands to a worker in a child process (for example through an
 * environment variable or a file), rebuilt there with {@link ScriptedLanguageModel.fromJSON}.
 */
export interface ScriptedModelScript {
  steps: ScriptedReply[];
  modelId?: string;
  provider?: string;
  stepSelection?: StepSelection;
}

/**
 * A language model for tests and benchmarks that answers from a script instead of a network: each call takes the
 * next step (text, tool calls, a thrown error, a delay), every request is recorded in {@link requests}, and a call
 * with no step left throws {@link ScriptedModelExhaustedError} so an unexpected extra model call fails the test
 * loudly. No timers unless a step asks for a delay, so benchmarks measure the runtime, not the model.
 */
export class ScriptedLanguageModel implements LanguageModelV4 {
  /** The AI SDK language model interface this class implements. */
  readonly specificationVersion = 'v4';
  /** `scripted` unless set in the options. */
  readonly provider: string;
  /** `scripted` unless set in the options. */
  readonly modelId: string;
  /** No URLs are fetched natively. */
  readonly supportedUrls: Record<string, RegExp[]> = {};
  /** Every request received, in order. */
  readonly requests: ScriptedRequest[] = [];
  private readonly steps: ScriptedStep[];
  private readonly stepSelection: StepSelection;
  private readonly recordRequests: boolean;
  private calls = 0;

  constructor(options: ScriptedLanguageModelOptions | ScriptedStep[]) {
    const resolved: ScriptedLanguageModelOptions = Array.isArray(options) ? { steps: options } : options;
    this.steps = [...resolved.steps];
    this.modelId = resolved.modelId ?? 'scripted';
    this.provider = resolved.provider ?? 'scripted';
    this.stepSelection = resolved.stepSelection ?? 'sequential';
    this.recordRequests = resolved.recordRequests ?? true;
  }

  /** Rebuilds a model from a {@link ScriptedModelScript} or its JSON text (e.g. in a worker child process). */
  static fromJSON(script: ScriptedModelScript | string): ScriptedLanguageModel {
    const parsed = typeof script === 'string' ? (JSON.parse(script) as ScriptedModelScript) : script;
    if (!parsed || !Array.isArray(parsed.steps)) {
      throw new TypeError('A scripted model script needs a "steps" array.');
    }
    return new ScriptedLanguageModel(parsed);
  }

  /** Number of calls received so far. */
  get callCount(): number {
    return this.calls;
  }

  /** Steps not used yet (sequential selection only; with `assistant-turns` it is the script length). */
  get remainingSteps(): number {
    return this.stepSelection === 'sequential' ? Math.max(0, this.steps.length - this.calls) : this.steps.length;
  }

  /** Answers from the script. */
  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    return (await this.answer(options)).result;
  }

  /** The same answer as {@link doGenerate}, replayed as a stream paced by the step's `stream` field. */
  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { result, reply } = await this.answer(options);
    return resultToStream(result, { ...reply.stream, abortSignal: options.abortSignal });
  }

  private async answer(
    options: LanguageModelV4CallOptions,
  ): Promise<{ result: LanguageModelV4GenerateResult; reply: ScriptedReply }> {
    const callIndex = this.calls++;
    const stepIndex =
      this.stepSelection === 'sequential'
        ? callIndex
        : options.prompt.filter((message) => message.role === 'assistant').length;
    const tools = options.tools ?? [];
    const request: ScriptedRequest = {
      callIndex,
      stepIndex,
      prompt: options.prompt,
      tools,
      toolNames: tools.map((tool) => tool.name),
      toolChoice: options.toolChoice,
      providerOptions: options.providerOptions,
      lastUserText: lastUserText(options.prompt),
    };
    if (this.recordRequests) this.requests.push(request);

    const step = this.steps[stepIndex];
    if (step === undefined) {
      throw new ScriptedModelExhaustedError({
        modelId: this.modelId,
        callIndex,
        stepIndex,
        stepCount: this.steps.length,
        lastUserText: request.lastUserText,
      });
    }
    const reply = typeof step === 'function' ? await step(request) : step;
    if (reply.delayMs !== undefined && reply.delayMs > 0) await sleep(reply.delayMs, options.abortSignal);
    options.abortSignal?.throwIfAborted();
    if (reply.error !== undefined) throw toError(reply.error, this.modelId);
    return { result: toResult(reply, stepIndex, options), reply };
  }
}

function toResult(
  reply: ScriptedReply,
  stepIndex: number,
  options: LanguageModelV4CallOptions,
): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] = [];
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  (reply.toolCalls ?? []).forEach((call, index) => {
    content.push({
      type: 'tool-call',
      toolCallId: call.toolCallId ?? `call_${stepIndex}_${index}`,
      toolName: call.toolName,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}),
    });
  });
  content.push(...(reply.content ?? []));
  if (content.length === 0) content.push({ type: 'text', text: '' });

  const callsTools = content.some((part) => part.type === 'tool-call' && !part.providerExecuted);
  const unified = reply.finishReason ?? (callsTools ? 'tool-calls' : 'stop');
  const output = content.map((part) => (part.type === 'text' ? part.text : JSON.stringify(part))).join('');
  return {
    content,
    finishReason: { unified, raw: unified },
    usage: makeUsage(
      reply.usage?.inputTokens ?? estimatePromptTokens(options),
      reply.usage?.outputTokens ?? estimateTokens(output),
    ),
    warnings: [],
  };
}

function toError(error: unknown, modelId: string): unknown {
  if (error instanceof Error || typeof error !== 'object' || error === null) return error;
  const spec = error as Partial<ScriptedErrorSpec>;
  if (typeof spec.message !== 'string') return error;
  if (spec.statusCode !== undefined) {
    const status = spec.statusCode;
    return new APICallError({
      message: spec.message,
      url: `scripted://${modelId}`,
      requestBodyValues: {},
      statusCode: status,
      responseHeaders: spec.responseHeaders,
      responseBody: spec.responseBody,
      isRetryable: spec.isRetryable ?? (status === 408 || status === 409 || status === 429 || status >= 500),
    });
  }
  const plain = new Error(spec.message);
  if (spec.name) plain.name = spec.name;
  return plain;
}
