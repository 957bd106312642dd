import type { Agent } from '../src/agent/agent.js';
import { mcpToolOrigin } from '../src/mcp/tools-from-listing.js';
import { mergeToolActivity, type ToolActivityOptions } from '../src/protocol/index.js';
import { localToolRefusal } from '../src/tool/local-tool.js';
import type { AnyTool } from '../src/tool/tool.js';

/**
 * The activity options a checked call carries to the workflow: the agent's tool defaults merged under the tool's
 * own. `local: true` is kept only for a tool that can run as a local activity: a tool asking for it itself was
 * checked when it was defined, but an agent's default also reaches MCP tools (remote calls that may wait for a
 * person's answer) and per-run tools, and those that cannot run locally keep their own activity. A local call
 * carries no heartbeat timeout or task queue (a local activity has neither).
 */
export function callActivityOptions(agent: Agent, tool: AnyTool): ToolActivityOptions {
  const { local, ...merged } = mergeToolActivity(agent.activity?.tools, tool.activity);
  if (local !== true) return merged;
  const ownChoice = tool.activity?.local === true;
  if (!ownChoice && (mcpToolOrigin(tool) !== undefined || localToolRefusal(tool) !== undefined)) return merged;
  const { heartbeatTimeout: _heartbeat, taskQueue: _queue, ...options } = merged;
  return { ...options, local: true };
}
