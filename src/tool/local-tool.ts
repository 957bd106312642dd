// Which tools may run as local activities (`activity: { local: true }`), checked when a tool or agent is defined.
import type { ToolActivityOptions } from '../protocol/descriptor.js';
import { LocalToolError } from './errors/local-tool-error.js';

/** What the check needs of a tool: its name, `execute`, `needsApproval` and own activity options. */
export interface LocalToolCandidate {
  name: string;
  execute?: unknown;
  needsApproval?: unknown;
  activity?: ToolActivityOptions;
}

/** True for `async function*` and `function*`: each yield is a checkpoint, which needs heartbeats. */
export function isGeneratorFunction(fn: unknown): boolean {
  if (typeof fn !== 'function') return false;
  const tag = Object.prototype.toString.call(fn);
  return tag === '[object AsyncGeneratorFunction]' || tag === '[object GeneratorFunction]';
}

/** Why `tool` cannot run as a local activity, or undefined when it can. */
export function localToolRefusal(tool: LocalToolCandidate): string | undefined {
  if (typeof tool.execute !== 'function') {
    return 'it is a client-side tool (no execute): the caller runs it, not the worker';
  }
  if (isGeneratorFunction(tool.execute)) {
    return (
      'it streams (execute is a generator): each yield is checkpointed as a heartbeat, and local activities have ' +
      'no heartbeats'
    );
  }
  if (tool.needsApproval === true || typeof tool.needsApproval === 'function') {
    return 'it may need approval: a local activity runs only when the model calls it, not hours later';
  }
  return undefined;
}

/**
 * Throws {@link LocalToolError} when `options` ask for a local activity together with options a local activity does
 * not have (`heartbeatTimeout`, `taskQueue`). `owner` names where the options were given, for the message.
 */
export function checkLocalActivityOptions(options: ToolActivityOptions | undefined, owner: string): void {
  if (options?.local === undefined) return;
  if (typeof options.local !== 'boolean') {
    throw new LocalToolError(owner, `${owner}: activity.local must be true or false.`);
  }
  if (!options.local) return;
  for (const key of ['heartbeatTimeout', 'taskQueue'] as const) {
    if (options[key] === undefined) continue;
    const why =
      key === 'heartbeatTimeout'
        ? 'a local activity has no heartbeats'
        : 'a local activity runs on the worker that runs the workflow task';
    throw new LocalToolError(owner, `${owner}: activity.local cannot be combined with ${key} (${why}). Remove one.`);
  }
}

/** Throws {@link LocalToolError} when a tool asks for `activity: { local: true }` but cannot run locally. */
export function checkLocalTool(tool: LocalToolCandidate): void {
  checkLocalActivityOptions(tool.activity, `Tool '${tool.name}'`);
  if (tool.activity?.local !== true) return;
  const why = localToolRefusal(tool);
  if (why) {
    throw new LocalToolError(
      tool.name,
      `Tool '${tool.name}' cannot run as a local activity: ${why}. Remove activity.local from it.`,
    );
  }
}

/**
 * Throws {@link LocalToolError} when an agent's tool defaults ask for local activities and one of its tools cannot
 * run locally without saying so (`activity: { local: false }` on that tool).
 */
export function checkAgentLocalTools(
  agentName: string,
  defaults: ToolActivityOptions | undefined,
  tools: LocalToolCandidate[],
): void {
  checkLocalActivityOptions(defaults, `Agent '${agentName}' (activity.tools)`);
  if (defaults?.local !== true) return;
  for (const tool of tools) {
    if (tool.activity?.local === false) continue;
    const why = localToolRefusal(tool);
    if (!why) continue;
    throw new LocalToolError(
      agentName,
      `Agent '${agentName}' runs its tools as local activities (activity.tools.local), but tool '${tool.name}' ` +
        `cannot run locally: ${why}. Give that tool activity: { local: false }.`,
    );
  }
}
