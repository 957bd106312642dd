import type { LiveStream } from './live-stream.js';

/**
 * The live transport each Temporal client reads runs' streams with (set by `AgentClient`, which the CLI, the HTTP
 * handler and the inbox use): the run stream reader asks here which source to read. A client without one reads
 * every run from its Workflow Streams log.
 */
const transports = new WeakMap<object, LiveStream>();

/** Reads runs' streams through `client` from `live` (Redis) when a run publishes there. */
export function useLiveStream(client: object, live: LiveStream): void {
  transports.set(client, live);
}

/** The live transport `client` reads with, if any. */
export function liveStreamOf(client: object): LiveStream | undefined {
  return transports.get(client);
}
