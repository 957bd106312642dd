import type { LiveStream } from './live-stream.js';

/**
 * The live transport each Temporal client reads runs' streams with (set by `AgentClient`, which the CLI, the HTTP
 * handler and the inbox use): the run stream reader asks here which source to read. A client without one reads
 * every run from its Workflow Streams log.
 */
const transports = new WeakMap<object, LiveStream>();

/**
 * Reads runs' streams through `client` from `live` (Redis) when a run publishes there. A Temporal `Client`'s
 * workflow handles name its `workflow` client (`handle.client`): both are registered.
 */
export function useLiveStream(client: object, live: LiveStream): void {
  transports.set(client, live);
  const workflow = (client as { workflow?: unknown }).workflow;
  if (typeof workflow === 'object' && workflow !== null) transports.set(workflow, live);
}

/** The live transport `client` reads with, if any. */
export function liveStreamOf(client: object): LiveStream | undefined {
  return transports.get(client);
}
