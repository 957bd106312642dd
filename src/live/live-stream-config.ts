import { RedisLiveStream, type RedisLiveStreamOptions } from './redis-live-stream.js';
import type { LiveStream } from './live-stream.js';

/**
 * The `liveStream` option of the worker, the client, the CLI, the HTTP handler and the inbox: where a run's live
 * items travel. `'workflow'` (the default when nothing else is configured): the run's own Workflow Streams log.
 * Redis options (or a transport made already): Redis Streams, with the key that authenticates entries.
 */
export type LiveStreamOption = 'workflow' | RedisLiveStreamOptions | LiveStream;

/** The environment variables the `liveStream` option defaults from. */
export const REDIS_URL_ENV = 'DURABLE_AGENT_REDIS_URL';
export const STREAM_KEY_ENV = 'DURABLE_AGENT_STREAM_KEY';

/**
 * Redis options from the environment: `DURABLE_AGENT_REDIS_URL` (`redis://…` or `rediss://…`) and
 * `DURABLE_AGENT_STREAM_KEY` (at least 16 characters; every worker and reader of a deployment has the same). None
 * without a URL; a URL without a key is an error, since readers could not tell the run's entries from anyone's.
 */
export function liveStreamFromEnv(env: NodeJS.ProcessEnv = process.env): RedisLiveStreamOptions | undefined {
  const url = env[REDIS_URL_ENV]?.trim();
  if (!url) return undefined;
  const key = env[STREAM_KEY_ENV];
  if (!key) {
    throw new TypeError(
      `${REDIS_URL_ENV} is set but ${STREAM_KEY_ENV} is not: set it to the same secret (at least 16 characters) ` +
        "on every worker and every process that reads runs, so that readers can check entries are the runs' own.",
    );
  }
  return { url, key };
}

/**
 * The transport an option names: undefined for Workflow Streams (no option and no `DURABLE_AGENT_REDIS_URL`, or
 * `'workflow'`), a {@link RedisLiveStream} for Redis options (the caller closes it), the transport itself when given.
 */
export function resolveLiveStream(
  option: LiveStreamOption | undefined,
  env: NodeJS.ProcessEnv = process.env,
): LiveStream | undefined {
  if (option === 'workflow') return undefined;
  if (option === undefined) {
    const fromEnv = liveStreamFromEnv(env);
    return fromEnv ? new RedisLiveStream(fromEnv) : undefined;
  }
  if ('url' in option) return new RedisLiveStream(option);
  return option;
}
