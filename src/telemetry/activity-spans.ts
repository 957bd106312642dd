// Agent-level detail on the activity spans of a traced worker: a span per tool call (tool name, call id, attempt,
// outcome) and the step and token usage of each model call. Runs inside Temporal's OpenTelemetry activity
// interceptor, whose `RunActivity` span is the active one here.
import { SpanStatusCode, trace, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import type { Context as ActivityContext } from '@temporalio/activity';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, Next } from '@temporalio/worker';
import type { ExecuteToolInput, ExecuteToolResult, GenerateInput, GenerateResult } from '../protocol/index.js';

/** Attribute names on durable-agent's spans (GenAI semantic conventions where one exists). */
export const SpanAttribute = {
  OperationName: 'gen_ai.operation.name',
  ToolName: 'gen_ai.tool.name',
  ToolCallId: 'gen_ai.tool.call.id',
  ToolArguments: 'gen_ai.tool.call.arguments',
  InputTokens: 'gen_ai.usage.input_tokens',
  OutputTokens: 'gen_ai.usage.output_tokens',
  FinishReason: 'gen_ai.response.finish_reasons',
  Agent: 'durable_agent.agent',
  Step: 'durable_agent.step',
  WorkflowId: 'durable_agent.workflow_id',
  Attempt: 'durable_agent.attempt',
  ToolOutcome: 'durable_agent.tool.outcome',
} as const;

/** Options of {@link createActivitySpanInterceptor}. */
export interface ActivitySpanOptions {
  tracer: Tracer;
  /** Record tool arguments on tool spans. */
  recordContent: boolean;
}

/** An activity interceptor factory for `WorkerOptions.interceptors.activity`. */
export function createActivitySpanInterceptor(options: ActivitySpanOptions) {
  return (ctx: ActivityContext): { inbound: ActivityInboundCallsInterceptor } => ({
    inbound: {
      execute: (input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>) => {
        const type = ctx.info.activityType;
        if (type === 'executeTool') return traceToolCall(options, ctx, input, next);
        if (type === 'generate') return annotateModelCall(ctx, input, next);
        return next(input);
      },
    },
  });
}

/** One span per tool call attempt, named as the GenAI conventions name it: `execute_tool <tool>`. */
async function traceToolCall(
  options: ActivitySpanOptions,
  ctx: ActivityContext,
  input: ActivityExecuteInput,
  next: Next<ActivityInboundCallsInterceptor, 'execute'>,
): Promise<unknown> {
  const call = input.args[0] as ExecuteToolInput;
  const attributes: Attributes = {
    [SpanAttribute.OperationName]: 'execute_tool',
    [SpanAttribute.ToolName]: call.toolName,
    [SpanAttribute.ToolCallId]: call.toolCallId,
    [SpanAttribute.Agent]: call.agentName,
    [SpanAttribute.Step]: call.step,
    [SpanAttribute.WorkflowId]: call.run.workflowId,
    [SpanAttribute.Attempt]: ctx.info.attempt,
  };
  if (options.recordContent) attributes[SpanAttribute.ToolArguments] = JSON.stringify(call.args);
  return await options.tracer.startActiveSpan(`execute_tool ${call.toolName}`, { attributes }, async (span) => {
    try {
      const result = (await next(input)) as ExecuteToolResult;
      span.setAttribute(SpanAttribute.ToolOutcome, result.kind);
      // An error result goes back to the model and the run goes on, but the tool did fail.
      if (result.kind !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: `tool outcome: ${result.kind}` });
      return result;
    } catch (error) {
      endWithThrow(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Step, agent and token usage on the `generate` activity's span; the AI SDK's spans nest under it. */
async function annotateModelCall(
  ctx: ActivityContext,
  input: ActivityExecuteInput,
  next: Next<ActivityInboundCallsInterceptor, 'execute'>,
): Promise<unknown> {
  const span = trace.getActiveSpan();
  const request = input.args[0] as GenerateInput;
  span?.setAttributes({
    [SpanAttribute.Agent]: request.agentName,
    [SpanAttribute.Step]: request.step,
    [SpanAttribute.WorkflowId]: request.run.workflowId,
    [SpanAttribute.Attempt]: ctx.info.attempt,
  });
  const result = (await next(input)) as GenerateResult;
  span?.setAttributes({
    [SpanAttribute.InputTokens]: result.usage.inputTokens,
    [SpanAttribute.OutputTokens]: result.usage.outputTokens,
    [SpanAttribute.FinishReason]: [result.finishReason],
  });
  return result;
}

function endWithThrow(span: Span, error: unknown): void {
  // A cancelled or failed attempt: Temporal retries it or the run ends; either way this attempt did not finish.
  const name = error instanceof Error ? error.name : 'Error';
  span.setAttribute(SpanAttribute.ToolOutcome, name === 'CancelledFailure' ? 'cancelled' : 'failed');
  if (error instanceof Error) span.recordException(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}
