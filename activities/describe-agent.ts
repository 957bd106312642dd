import {
  DEFAULT_MAX_STEPS,
  type DescribeAgentInput,
  type DescribeAgentResult,
  type GenerateActivityOptions,
  type ToolActivityOptions,
} from '../src/protocol/index.js';
import { toJsonValue } from '../src/tool/json-safe.js';
import { type ActivityDependencies, requireAgent, toToolContext } from './dependencies.js';

/**
 * Records what a run needs to know about its agent: system prompt (with toolkit instructions and retriever
 * context), tool descriptors and policies. Called once per run; its result in history makes replay independent of
 * later changes to the worker's agent definition.
 */
export function createDescribeAgent(deps: ActivityDependencies) {
  return async function describeAgent(input: DescribeAgentInput): Promise<DescribeAgentResult> {
    const agent = requireAgent(deps, input.agentName);
    const ctx = toToolContext(input.run);
    const tools = await agent.resolveRunTools(ctx);
    const prompt = await agent.buildSystemPrompt({ input: input.input, ctx, tools });
    const approvalTimeoutMs = agent.approvalTimeoutMs;
    return {
      version: 1,
      agentName: agent.name,
      systemPrompt: prompt.text,
      tools: tools.getToolDescriptors(),
      maxSteps: agent.maxSteps ?? DEFAULT_MAX_STEPS,
      approval: approvalTimeoutMs !== undefined ? { timeoutMs: approvalTimeoutMs } : {},
      ...(agent.activity?.generate
        ? { generateActivity: toJsonValue(agent.activity.generate) as GenerateActivityOptions }
        : {}),
      ...(agent.activity?.tools ? { toolActivity: toJsonValue(agent.activity.tools) as ToolActivityOptions } : {}),
      ...(prompt.retrieverError !== undefined ? { retrieverError: prompt.retrieverError } : {}),
    };
  };
}
