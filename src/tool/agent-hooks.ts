import type { AnyTool, OperationContext, ToolExecuteOptions, ToolHookOnEndResult } from './tool.js';

/** The agent as tool hooks see it. The durable runtime passes the `Agent` itself. */
export interface AgentRef {
  readonly name: string;
}

/** Argument of an agent's `onToolStart`. */
export interface OnToolStartArgs<A extends AgentRef = AgentRef> {
  agent: A;
  tool: AnyTool;
  /** The run: operationId, userId, conversationId and the context map. */
  context: OperationContext;
  args: unknown;
  options: ToolExecuteOptions;
}

/** Argument of an agent's `onToolEnd`: on failure `error` is set and `output` undefined. */
export interface OnToolEndArgs<A extends AgentRef = AgentRef> {
  agent: A;
  tool: AnyTool;
  output: unknown;
  error: Error | undefined;
  context: OperationContext;
  options: ToolExecuteOptions;
}

/** Argument of an agent's `onToolError`. */
export interface OnToolErrorArgs<A extends AgentRef = AgentRef> {
  agent: A;
  tool: AnyTool;
  args: unknown;
  /** The failure as an `Error` (a thrown non-Error is wrapped). */
  error: Error;
  /** Exactly what was thrown. */
  originalError: unknown;
  context: OperationContext;
  options: ToolExecuteOptions;
}

/**
 * Agent-level tool hooks, run around every tool call of the agent. `onToolEnd` may return `{ output }` to replace
 * a successful result (validated again); `onToolError` may return `{ output }` to replace the error payload.
 * Declared as methods so hooks typed for a richer agent type still fit.
 */
export interface AgentToolHooks<A extends AgentRef = AgentRef> {
  onToolStart?(args: OnToolStartArgs<A>): void | Promise<void>;
  onToolEnd?(args: OnToolEndArgs<A>): void | ToolHookOnEndResult | Promise<void | ToolHookOnEndResult>;
  onToolError?(args: OnToolErrorArgs<A>): void | ToolHookOnEndResult | Promise<void | ToolHookOnEndResult>;
}
