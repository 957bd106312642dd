import type { Agent } from '../src/agent/agent.js';
import type {
  ExecuteToolInput,
  McpListingRef,
  RunContextData,
  RunRef,
  TranscriptDelta,
  TranscriptMark,
  TranscriptMessage,
} from '../src/protocol/index.js';
import { ToolRoutingConfigError } from '../src/routing/errors/tool-routing-config-error.js';
import { resolveRunToolPool, type RunToolRouting } from '../src/routing/resolve-run-routing.js';
import { checkToolCall, type ToolCallCheck, type ToolLookup } from '../src/tool/check-tool-call.js';
import type { ToolManager } from '../src/tool/tool-manager.js';
import { type ActivityDependencies, runToolSet } from '../src/runtime/dependencies.js';
import { routingFailure, routingLookup, runRouting } from './run-routing.js';

/** Where a step's activity finds its run: the transcript reference and the MCP listings the run recorded. */
export interface RunCallInput {
  run: RunRef;
  messageCount: number;
  delta?: TranscriptDelta;
  mark?: TranscriptMark;
  mcp?: McpListingRef[];
}

/** A run as one step's activity sees it on this worker: its transcript so far, its context and its tools. */
export interface RunCall {
  messages: TranscriptMessage[];
  run: RunContextData;
  tools: ToolManager;
}

/**
 * Reads what a step's activity needs of its run: the transcript (from the worker's cache, else the run's query),
 * the run's context, and its tools (the agent's own for the run plus the MCP tools of the listings it recorded).
 * `generate` and `executeTool` both start here.
 */
export async function readRunCall(deps: ActivityDependencies, agent: Agent, input: RunCallInput): Promise<RunCall> {
  const transcript = await deps.transcripts.read(input.run, input.messageCount, {
    ...(input.delta ? { delta: input.delta } : {}),
    ...(input.mark ? { mark: input.mark } : {}),
  });
  const tools = await runToolSet(deps, agent, input.run, transcript.run, input.mcp);
  return { messages: transcript.messages, run: transcript.run, tools };
}

/** The run's tool routing on this worker (undefined when neither the agent nor the run routes). */
export function callRouting(deps: ActivityDependencies, agent: Agent, call: RunCall): RunToolRouting | undefined {
  return runRouting(deps, agent, call.tools, call.run);
}

/**
 * The tool an `executeTool` input names, checked against its arguments again (the parsed arguments, defaults
 * applied, are what the tool gets). A routed `callTool` target (`via: 'callTool'`) is looked up in the run's pool,
 * where `generate` checked it: the run's routing is not resolved again.
 */
export async function checkExecutedCall(
  deps: ActivityDependencies,
  agent: Agent,
  call: RunCall,
  input: Pick<ExecuteToolInput, 'toolName' | 'args' | 'via'>,
): Promise<ToolCallCheck> {
  return await checkToolCall(executionLookup(deps, agent, call, input.via), input.toolName, input.args);
}

function executionLookup(
  deps: ActivityDependencies,
  agent: Agent,
  call: RunCall,
  via: ExecuteToolInput['via'],
): ToolLookup {
  const pool = via === 'callTool' ? runPool(agent, call) : undefined;
  if (pool) return pool;
  // A direct call, or a target named by an earlier workflow: a routed run also executes pooled tools (callTool's
  // targets), which an explicit pool may hold unregistered.
  const routing = callRouting(deps, agent, call);
  return routing ? routingLookup(routing) : call.tools;
}

/** The run's pool as a lookup; undefined when the worker's agent no longer routes the run (a deploy changed it). */
function runPool(agent: Agent, call: RunCall): ToolLookup | undefined {
  try {
    const pool = resolveRunToolPool({ tools: call.tools, config: agent.toolRouting, override: call.run.toolRouting });
    if (!pool) return undefined;
    return {
      getToolByName: (name) => pool.getToolByName(name),
      getAllToolNames: () => pool.getAllTools().map((tool) => tool.name),
    };
  } catch (err) {
    throw ToolRoutingConfigError.isInstance(err) ? routingFailure(err) : err;
  }
}
