import type { ModelMessage } from 'ai';
import { getGlobalLogger } from '../logger.js';
import type { McpElicitationHandler, McpProgress } from '../protocol/mcp-call.js';
import type { ToolExecuteOptions } from './tool.js';

/**
 * What an MCP tool's call takes from the activity that runs it, as the `mcpCall` field of its execute options
 * (explicit, so a reader of the pipeline sees it; other tools ignore it).
 */
export interface McpCallHooks {
  /** MCP request timeout for this call (below the activity's start-to-close). */
  timeoutMs: number;
  /** Answers the server's questions during the call (durable runs: through the run). */
  onElicitation: McpElicitationHandler;
  /** Receives the server's progress notifications. */
  onProgress: (progress: McpProgress) => void;
}

/** Input of {@link createToolExecuteOptions}: the call's identity plus whatever the caller already has. */
export interface ToolExecuteOptionsInit extends Partial<Omit<ToolExecuteOptions, 'toolContext'>> {
  toolName: string;
  toolCallId: string;
  messages?: ModelMessage[];
}

/**
 * Builds complete {@link ToolExecuteOptions} for one call, filling the defaults: a fresh operation id and context
 * map, an abort controller (whose signal is used unless one is given), the global logger, attempt 1, and an
 * idempotency key derived from the operation and the tool-call id (so it is stable across retries).
 */
export function createToolExecuteOptions(init: ToolExecuteOptionsInit): ToolExecuteOptions {
  const { toolName, toolCallId, messages, ...rest } = init;
  const abortController = rest.abortController ?? new AbortController();
  const abortSignal = rest.abortSignal ?? abortController.signal;
  const operationId = rest.operationId ?? globalThis.crypto.randomUUID();
  return {
    ...rest,
    operationId,
    context: rest.context ?? new Map(),
    abortSignal,
    abortController,
    logger: rest.logger ?? getGlobalLogger(),
    toolContext: { name: toolName, callId: toolCallId, messages: messages ?? [], abortSignal },
    attempt: rest.attempt ?? 1,
    idempotencyKey: rest.idempotencyKey ?? `${operationId}:${toolCallId}`,
  };
}
