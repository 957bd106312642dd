import type { RegisteredTool } from './normalize-tool.js';
import { isProviderTool } from './provider-tool.js';
import type { ToolApprovalContext } from './tool.js';

/**
 * Whether this call of the tool needs a human approval: `needsApproval` as a boolean, or the result of calling it.
 * The durable runtime evaluates it in the generate activity, so the workflow receives a plain boolean. Errors
 * from the function propagate: the caller decides whether a failing policy means "ask" or "fail".
 */
export async function evaluateNeedsApproval(
  tool: RegisteredTool,
  args: unknown,
  ctx: ToolApprovalContext,
): Promise<boolean> {
  const policy = tool.needsApproval;
  if (typeof policy !== 'function') return policy === true;
  if (isProviderTool(tool)) {
    // Provider tools come from the AI SDK and expect its option shape, with a plain-object context.
    const aiSdkPolicy = policy as (input: unknown, options: unknown) => boolean | Promise<boolean>;
    return (
      (await aiSdkPolicy(args, {
        toolCallId: ctx.toolCallId,
        messages: ctx.messages,
        context: Object.fromEntries(ctx.context),
      })) === true
    );
  }
  return (await policy(args, ctx)) === true;
}
