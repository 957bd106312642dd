import { DurableAgentError } from '../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.AgentNotFoundError');

/**
 * Thrown when a run names an agent the worker does not host. Register the agent with the worker to fix it; when a
 * worker of another project polls the same task queue (two projects on one Temporal), give each its own queue.
 */
export class AgentNotFoundError extends DurableAgentError {
  private readonly [MARKER] = true;
  /** The task queue of the worker that got the run, when a worker got it. */
  readonly taskQueue: string | undefined;

  constructor(
    /** The name that was asked for. */
    readonly agentName: string,
    /** The names the registry knows. */
    readonly knownAgents: readonly string[],
    options: { taskQueue?: string | undefined } = {},
  ) {
    const known = knownAgents.length > 0 ? `Known agents: ${knownAgents.join(', ')}.` : 'No agents are registered.';
    super({ code: 'Agent.NotFound', message: `Unknown agent '${agentName}'. ${known}${fix(agentName, options)}` });
    this.name = 'AgentNotFoundError';
    this.taskQueue = options.taskQueue;
  }

  /** True for a {@link AgentNotFoundError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is AgentNotFoundError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}

/**
 * A run reaches whichever worker polls its task queue: when a worker without the agent got it, the usual cause is
 * another project's worker on the same queue, and the fix is a queue per project.
 */
function fix(agentName: string, { taskQueue }: { taskQueue?: string | undefined }): string {
  if (taskQueue === undefined) return '';
  return (
    ` The worker that got the run polls task queue '${taskQueue}' and hosts only these. If '${agentName}' is hosted ` +
    `by another worker (another project on the same Temporal), that worker polls the same queue: give each project ` +
    `its own with TEMPORAL_TASK_QUEUE (or the taskQueue option of createAgentWorker and AgentClient), and start ` +
    `'${agentName}' on the task queue of the worker that hosts it.`
  );
}
