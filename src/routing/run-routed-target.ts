import type { AgentRef, AgentToolHooks } from '../tool/agent-hooks.js';
import { evaluateNeedsApproval } from '../tool/approval.js';
import { createToolExecuteOptions } from '../tool/execute-options.js';
import { runToolPipeline } from '../tool/pipeline.js';
import type { AnyTool, ToolExecuteOptions } from '../tool/tool.js';
import { CallToolRefusedError } from './errors/call-tool-refused-error.js';

/** A request for a human decision on a tool reached through the in-process `callTool`. */
export interface ToolApprovalRequest {
  tool: AnyTool;
  args: unknown;
  toolCallId: string;
  options: ToolExecuteOptions;
}

/** Decides an in-process approval: true/false, or `{ approved, reason }`. */
export type ToolApprovalHandler = (
  request: ToolApprovalRequest,
) => boolean | { approved: boolean; reason?: string } | Promise<boolean | { approved: boolean; reason?: string }>;

/** Input of {@link runRoutedTarget}. */
export interface RunRoutedTargetInput {
  /** The tool `callTool` checked and chose. */
  target: AnyTool;
  /** Its parsed arguments. */
  args: unknown;
  /** The execute options of the `callTool` call itself. */
  options: ToolExecuteOptions;
  agent?: AgentRef;
  agentHooks?: AgentToolHooks;
  approve?: ToolApprovalHandler;
}

/**
 * Runs `callTool`'s target in-process exactly as a direct call: its approval (asked through `approve`; without an
 * approver the call is refused with a message — never an abort of the run), then its hooks and validation through
 * the tool pipeline. A target's `ToolDeniedError` ends the run, as it would for a direct call; a target's error is
 * `callTool`'s result (the error payload the model sees).
 */
export async function runRoutedTarget(input: RunRoutedTargetInput): Promise<unknown> {
  const { target, args, options } = input;
  // Derived from the model's call id, so it is stable for the same call (idempotency keys stay stable too).
  const toolCallId = `${options.toolContext.callId}:${target.name}`;
  const targetOptions = createToolExecuteOptions({
    ...options,
    toolName: target.name,
    toolCallId,
    messages: options.toolContext.messages,
    idempotencyKey: undefined,
  });
  const approvalContext = {
    toolCallId,
    messages: options.toolContext.messages,
    userId: options.userId,
    conversationId: options.conversationId,
    context: options.context,
  };
  if (await evaluateNeedsApproval(target, args, approvalContext)) {
    if (!input.approve) {
      throw new CallToolRefusedError(
        'approval-unavailable',
        `Tool "${target.name}" needs a human approval before it runs, and no approver is available here. ` +
          `Tell the user what you wanted to do and ask them to approve it.`,
        target.name,
      );
    }
    const decision = await input.approve({ tool: target, args, toolCallId, options: targetOptions });
    const approved = typeof decision === 'boolean' ? decision : decision.approved;
    if (!approved) {
      const reason = typeof decision === 'object' ? decision.reason : undefined;
      return { type: 'execution-denied', reason: reason ?? `The call of ${target.name} was denied.` };
    }
  }
  const outcome = await runToolPipeline({
    tool: target,
    args,
    toolCallId,
    options: targetOptions,
    agent: input.agent,
    agentHooks: input.agentHooks,
  });
  if (outcome.kind === 'denied') throw outcome.error;
  return outcome.output;
}
