import type { ModelMessage } from 'ai';
import type { ToolResultOutput } from '../protocol/messages.js';
import type { ToolActivityOptions } from '../protocol/descriptor.js';
import { getGlobalLogger, type Logger } from '../logger.js';
import { checkLocalTool } from './local-tool.js';
import { isToolSchema, type InferSchemaInput, type InferSchemaOutput, type ToolSchema } from './schema.js';
import type { McpCallHooks } from './execute-options.js';

export type { ToolActivityOptions } from '../protocol/descriptor.js';

export type { ToolResultOutput } from '../protocol/messages.js';

/** Provider-specific options passed through to the model provider with the tool definition. */
export type ProviderOptions = Record<string, Record<string, unknown>>;

/** The run a tool call belongs to. */
export interface OperationContext {
  /** Unique per agent run (the workflow id in a durable run). */
  operationId: string;
  userId?: string;
  conversationId?: string;
  /** Caller-supplied data for this run. */
  context: Map<string, unknown>;
}

/** The model's side of a tool call. */
export interface ToolCallContext {
  /** The tool's name. */
  name: string;
  /** The model's tool-call id. */
  callId: string;
  /** The conversation that led to this call (without the system prompt). */
  messages: ModelMessage[];
  abortSignal?: AbortSignal;
}

/** The last progress value a streaming tool reported before its previous attempt died. */
export interface ToolCheckpoint {
  /** 1-based sequence number of the yield. */
  seq: number;
  value: unknown;
}

/** Second argument of `execute`. */
export interface ToolExecuteOptions extends OperationContext {
  /** Fires when the run is cancelled; pass it on to fetch and other cancellable work. */
  abortSignal: AbortSignal;
  /** For VoltAgent compatibility; prefer `abortSignal`. */
  abortController?: AbortController;
  logger: Logger;
  toolContext: ToolCallContext;
  /** 1 on the first attempt, incremented by each Temporal retry of the tool activity. */
  attempt: number;
  /** Set on a retried attempt of a streaming tool: where the previous attempt got to. */
  checkpoint?: ToolCheckpoint;
  /** Stable across retries and unique per tool call and run: use it to make side effects idempotent. */
  idempotencyKey: string;
  /** Set by the tool activity for an MCP tool's call: its timeout, elicitation and progress hooks. */
  mcpCall?: McpCallHooks;
}

/** What `execute` may return: a value, a promise, or an async iterable of progress values (last one final). */
export type ToolExecutionResult<T> = T | PromiseLike<T> | AsyncIterable<T>;

/** Context given to a `needsApproval` function. */
export interface ToolApprovalContext {
  toolCallId: string;
  messages: ModelMessage[];
  userId?: string;
  conversationId?: string;
  context: Map<string, unknown>;
}

/** Decides per call whether a human must approve it before it runs. */
export type ToolNeedsApprovalFunction<Args = any> = (
  args: Args,
  ctx: ToolApprovalContext,
) => boolean | PromiseLike<boolean>;

/** MCP tool annotations, used when the tool is exposed through an MCP server. */
export interface ToolMcpAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** Argument of a tool's `onStart` hook. */
export interface ToolHookOnStartArgs {
  tool: AnyTool;
  args: unknown;
  options: ToolExecuteOptions;
}

/** Argument of a tool's `onEnd` hook: `error` is set (and `output` undefined) when the call failed. */
export interface ToolHookOnEndArgs {
  tool: AnyTool;
  args: unknown;
  output: unknown;
  error: unknown;
  options: ToolExecuteOptions;
}

/** An `onEnd` hook may return an object with an own `output` to replace the result (it is validated again). */
export interface ToolHookOnEndResult {
  output?: unknown;
}

/** Lifecycle hooks of one tool. */
export interface ToolHooks {
  onStart?: (args: ToolHookOnStartArgs) => void | Promise<void>;
  onEnd?: (args: ToolHookOnEndArgs) => void | ToolHookOnEndResult | Promise<void | ToolHookOnEndResult>;
}

type ExecuteReturn<O> = O extends ToolSchema ? InferSchemaInput<O> : any;
type ValidatedOutput<O> = O extends ToolSchema ? InferSchemaOutput<O> : any;

/** Options of {@link createTool}. */
export interface ToolOptions<P extends ToolSchema = ToolSchema, O extends ToolSchema | undefined = undefined> {
  /** Defaults to `name`. */
  id?: string;
  /** The name the model calls the tool by. Required. */
  name: string;
  /** Tells the model when to use the tool. Missing → a warning and `""`. */
  description?: string;
  /** Arguments schema (Zod, or any Standard Schema). Required. */
  parameters: P;
  /** When set, every result (and every streamed value) is validated and parsed with it. */
  outputSchema?: O;
  /** Free-form labels, used by tool search. */
  tags?: string[];
  /** `true`, or a function deciding per call, to require a human approval before running. */
  needsApproval?: boolean | ToolNeedsApprovalFunction<InferSchemaOutput<P>>;
  providerOptions?: ProviderOptions;
  mcp?: ToolMcpAnnotations;
  /** Changes what the model sees; hooks and the run's result still see the real output. */
  toModelOutput?: (args: {
    output: ValidatedOutput<O>;
    input: InferSchemaOutput<P>;
    toolCallId: string;
  }) => ToolResultOutput | PromiseLike<ToolResultOutput>;
  hooks?: ToolHooks;
  /**
   * Durable extra: timeouts, heartbeat and retry policy of this tool's activity, or `local: true` to run it as a
   * local activity (short tools; throws `LocalToolError` for streaming, approval and client-side tools). Plain JSON.
   */
  activity?: ToolActivityOptions;
  /**
   * Runs the tool. Omit it for a client-side tool (the caller submits the result). May return a value, a
   * promise, an async iterable, or be an `async function*` (each yield is progress, the last is the result).
   */
  execute?: (args: InferSchemaOutput<P>, options: ToolExecuteOptions) => ToolExecutionResult<ExecuteReturn<O>>;
}

/**
 * A tool the agent can call. Build it with {@link createTool}. Calling `execute` directly skips validation and
 * hooks; those belong to the execution pipeline (`runToolPipeline`).
 */
export class Tool<P extends ToolSchema = ToolSchema, O extends ToolSchema | undefined = ToolSchema | undefined> {
  /** Stable discriminator: managers check it instead of `instanceof`, which breaks across package copies. */
  readonly type = 'user-defined' as const;
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly parameters: P;
  readonly outputSchema?: O;
  readonly tags?: string[];
  readonly needsApproval?: boolean | ToolNeedsApprovalFunction<InferSchemaOutput<P>>;
  readonly providerOptions?: ProviderOptions;
  readonly mcp?: ToolMcpAnnotations;
  readonly toModelOutput?: ToolOptions<P, O>['toModelOutput'];
  readonly hooks?: ToolHooks;
  readonly activity?: ToolActivityOptions;
  readonly execute?: ToolOptions<P, O>['execute'];

  constructor(options: ToolOptions<P, O>) {
    if (!options.name) throw new Error('Tool name is required');
    if (!options.description) getGlobalLogger().warn(`Tool '${options.name}' created without a description`);
    if (!options.parameters) throw new Error(`Tool '${options.name}' parameters schema is required`);
    if (!isToolSchema(options.parameters)) {
      throw new Error(`Tool '${options.name}' parameters must be a Zod schema or a Standard Schema`);
    }
    this.id = options.id ?? options.name;
    this.name = options.name;
    this.description = options.description || '';
    this.parameters = options.parameters;
    this.outputSchema = options.outputSchema;
    this.tags = options.tags;
    this.needsApproval = options.needsApproval;
    this.providerOptions = options.providerOptions;
    this.mcp = options.mcp;
    this.toModelOutput = options.toModelOutput;
    this.hooks = options.hooks;
    this.activity = options.activity;
    this.execute = options.execute;
    // `activity: { local: true }` on a tool a local activity cannot run: refused now, not at its first call.
    checkLocalTool(this);
  }

  /**
   * True when the tool has no `execute`: the run pauses and the caller submits the result. An arrow property so
   * it survives `{ ...tool }` copies.
   */
  readonly isClientSide = (): boolean => typeof this.execute !== 'function';
}

/** A tool of any parameter and output schema. */
export type AnyTool = Tool<any, any>;

/**
 * Creates a {@link Tool}. Throws `Tool name is required` and `Tool '<name>' parameters schema is required`;
 * warns `Tool '<name>' created without a description`.
 */
export function createTool<P extends ToolSchema, O extends ToolSchema | undefined = undefined>(
  options: ToolOptions<P, O>,
): Tool<P, O> {
  return new Tool(options);
}

/** Alias of {@link createTool}, as in VoltAgent. */
export const tool = createTool;

/** True for a {@link Tool} from any copy of this package (checked by its `type` discriminator). */
export function isUserDefinedTool(value: unknown): value is AnyTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'user-defined' &&
    typeof (value as { name?: unknown }).name === 'string' &&
    isToolSchema((value as { parameters?: unknown }).parameters)
  );
}
