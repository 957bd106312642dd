import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  DEFAULT_MAX_STEPS,
  FailureType,
  firstMessages,
  initialMessages,
  utf8Length,
  type DescribeAgentInput,
  type DescribeAgentResult,
  type GenerateActivityOptions,
  type RunContextData,
  type ToolRoutingDescription,
} from '../src/protocol/index.js';
import type { Agent } from '../src/agent/agent.js';
import { describeToolRouting } from '../src/routing/describe-routing.js';
import type { ToolManager } from '../src/tool/tool-manager.js';
import { toJsonValue } from '../src/tool/json-safe.js';
import { type ActivityDependencies, requireAgent, toToolContext } from '../src/runtime/dependencies.js';
import type { SearchAttributeLister } from '../src/runtime/search-attributes-check.js';
import { routingFailure, runRouting } from './run-routing.js';

/**
 * Records what the workflow branches on for a run: the system prompt (with toolkit instructions and retriever
 * context), the step budget, the approval timeout and the model call's activity options. Called once per run (a
 * local activity); its result in history keeps them fixed for the run. The tools are not recorded: each step's
 * `generate` offers the worker's current tools and reports what the workflow needs of each call.
 */
export function createDescribeAgent(deps: ActivityDependencies) {
  return async function describeAgent(input: DescribeAgentInput): Promise<DescribeAgentResult> {
    const agent = requireAgent(deps, input.agentName);
    const ctx = toToolContext(input.run);
    const tools = await agent.resolveRunTools(ctx);
    const maxBytes = deps.limits.systemPromptBytes;
    const prompt = await agent.buildSystemPrompt({ input: input.input, ctx, tools, maxBytes });
    const bytes = utf8Length(prompt.text);
    if (bytes > maxBytes) {
      // Recording it would fail every attempt of the run's first workflow task: fail the run once, saying why.
      throw ApplicationFailure.create({
        type: FailureType.AgentSystemPromptTooLarge,
        nonRetryable: true,
        message:
          `Agent '${agent.name}' has a system prompt of ${bytes} bytes (instructions and toolkit instructions), ` +
          `over the ${maxBytes}-byte limit for a recorded prompt. Shorten the instructions, or raise ` +
          'limits.systemPromptBytes if your Temporal server allows larger payloads.',
      });
    }
    const routing = await describeRouting(deps, agent, tools, input.run);
    const searchAttributes = await namespaceHasSearchAttributes(deps);
    const approvalTimeoutMs = agent.approvalTimeoutMs;
    // The run records these first messages; caching them now spares the first model call a transcript query.
    const execution = Context.current().info.workflowExecution;
    const seedId = execution ? randomUUID() : undefined;
    if (execution && seedId) {
      const messages = firstMessages(prompt.text, initialMessages(input.input));
      deps.transcripts.seed({ workflowId: execution.workflowId, runId: execution.runId }, messages, input.run, seedId);
    }
    return {
      version: 2,
      ...(seedId !== undefined ? { seedId } : {}),
      agentName: agent.name,
      systemPrompt: prompt.text,
      maxSteps: agent.maxSteps ?? DEFAULT_MAX_STEPS,
      ...(agent.toolConcurrency !== undefined ? { toolConcurrency: agent.toolConcurrency } : {}),
      approval: {
        ...(approvalTimeoutMs !== undefined ? { timeoutMs: approvalTimeoutMs } : {}),
        ...(agent.approval?.earlyDecisions ? { earlyDecisions: true } : {}),
        ...(agent.approval?.authorizeDecision ? { authorize: true } : {}),
      },
      ...(agent.activity?.generate
        ? { generateActivity: toJsonValue(agent.activity.generate) as GenerateActivityOptions }
        : {}),
      ...(prompt.retrieverError !== undefined ? { retrieverError: prompt.retrieverError } : {}),
      ...(agent.mcp && agent.mcp.serverNames.length > 0
        ? {
            mcp: {
              servers: [...agent.mcp.serverNames],
              ...(agent.elicitationTimeoutMs !== undefined ? { elicitationTimeoutMs: agent.elicitationTimeoutMs } : {}),
              ...(agent.mcp.listBudgetMs !== undefined ? { listBudgetMs: agent.mcp.listBudgetMs } : {}),
            },
          }
        : {}),
      ...(routing ? { routing } : {}),
      // Recorded only when it differs from the default (streamed, default interval).
      ...(agent.streaming === false || agent.streaming.intervalMs !== undefined ? { streaming: agent.streaming } : {}),
      // Recorded, so the run's upserts replay the same whatever a later worker finds.
      ...(searchAttributes ? { searchAttributes: true as const } : {}),
      ...(deps.live ? { liveStream: 'redis' as const } : {}),
    };
  };
}

/**
 * Whether the run's namespace has durable-agent's search attributes, asked through the worker's own connection
 * (its operator service) once per worker and namespace. No connection to ask with (a test environment): no.
 */
async function namespaceHasSearchAttributes(deps: ActivityDependencies): Promise<boolean> {
  const context = Context.current();
  const { namespace } = context.info;
  let connection: unknown;
  try {
    connection = context.client.connection;
  } catch {
    return false;
  }
  const lister = (connection as { operatorService?: SearchAttributeLister } | undefined)?.operatorService;
  return await deps.searchAttributes.available(namespace, lister);
}

/**
 * The run's routing as recorded data (what the model sees, pool size, ranking, default top-K, embedding batch
 * plan), when the agent or the run configures routing. An override naming unknown tools, or an embedding model
 * the worker cannot build, fails the run here, once, saying why.
 */
async function describeRouting(
  deps: ActivityDependencies,
  agent: Agent,
  tools: ToolManager,
  run: RunContextData,
): Promise<ToolRoutingDescription | undefined> {
  const routing = runRouting(deps, agent, tools, run);
  if (!routing) return undefined;
  try {
    return await describeToolRouting(routing);
  } catch (err) {
    throw routingFailure(err);
  }
}
