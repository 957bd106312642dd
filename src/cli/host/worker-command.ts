// `durable-agent worker [agentsFile]`: hosts the user's agents on a worker, against the Temporal that the TEMPORAL_*
// variables or a temporal.toml profile name. Temporal's own logs stay at WARN (createAgentWorker) unless
// DURABLE_AGENT_LOG_LEVEL says otherwise, so it prints what a person needs: which agents, which queue. The queue is
// the project's (TEMPORAL_TASK_QUEUE, else the agents file's package.json name), so two projects on one server keep
// their runs apart.
import { dirname, relative } from 'node:path';
import { resolveProjectTaskQueue } from '../../connection/project-task-queue.js';
import { resolveConnection } from '../../connection/resolve-connection.js';
import { createAgentWorker } from '../../worker/create-agent-worker.js';
import { runUntilSignal } from '../../worker/run-until-signal.js';
import { CLI_COMMAND } from '../usage.js';
import { findAgentsFile, loadAgents } from './load-agents.js';

/** Where the host commands write. */
export interface HostIo {
  out: (text: string) => void;
  note: (text: string) => void;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
}

/**
 * Loads the agents, starts a worker for them and runs it until SIGTERM/SIGINT (drained) or `io.signal` aborts.
 * Resolves with the exit status.
 */
export async function workerCommand(agentsFile: string | undefined, io: HostIo): Promise<number> {
  const file = findAgentsFile(agentsFile);
  const agents = await loadAgents(file);
  const settings = resolveConnection({ env: io.env });
  const queue = resolveProjectTaskQueue({ dir: dirname(file), env: io.env });
  const worker = await createAgentWorker({ agents, env: io.env, taskQueue: queue.taskQueue });
  const names = agents.map((agent) => agent.name);
  io.out(
    `worker ready: ${names.join(', ')} on task queue '${worker.options.taskQueue}' at ${settings.address} ` +
      `(namespace ${settings.namespace})`,
  );
  if (queue.source.kind === 'package.json') {
    // A person renaming the package, or running a second project, should know where the name came from.
    const path = relative(process.cwd(), queue.source.path) || 'package.json';
    io.out(`  the task queue is the name in ${path}; TEMPORAL_TASK_QUEUE sets another`);
  }
  // The CLI started from here picks the queue of the project here; when that is another, the hint names this one.
  const here = resolveProjectTaskQueue({ env: io.env }).taskQueue;
  const prefix = here === queue.taskQueue ? '' : `TEMPORAL_TASK_QUEUE=${shellWord(queue.taskQueue)} `;
  io.out(`  start a run: ${prefix}${CLI_COMMAND} start ${names[0]} "Hello" --watch`);
  if (io.signal) {
    const stop = () => worker.shutdown();
    if (io.signal.aborted) stop();
    io.signal.addEventListener('abort', stop, { once: true });
    await worker.run();
  } else {
    await runUntilSignal(worker, { log: io.note });
  }
  return 0;
}

/** A task queue name as one shell word. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
