import type { ConnectionOptions } from 'node:tls';
import { Redis } from 'ioredis';
import { getGlobalLogger } from '../logger.js';
import { entryMac, verifyEntryMac } from './entry-mac.js';
import type { LiveEntry, LiveItem, LiveRead, LiveReader, LiveRunRef, LiveStream } from './live-stream.js';

/** Options of {@link RedisLiveStream}. */
export interface RedisLiveStreamOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://…` for TLS. */
  url: string;
  /** The stream key: authenticates entries (only workers and trusted readers hold it). At least 16 bytes. */
  key: string | Uint8Array;
  /** Entries a run's stream keeps (approximately: Redis trims whole nodes); older ones are trimmed. Default 10,000. */
  maxLen?: number;
  /** Seconds a run's stream is kept after its last publish. Default 86,400 (a day). */
  ttlSeconds?: number;
  /** Prefix of the Redis keys. Default `durable-agent:live`. */
  prefix?: string;
  /**
   * TLS options for a `rediss://` URL beyond the URL's (e.g. `ca`, a private CA's certificate to trust). Default:
   * Node's defaults (the system's CAs, the host name checked).
   */
  tls?: ConnectionOptions;
}

const DEFAULT_MAX_LEN = 10_000;
const DEFAULT_TTL_SECONDS = 86_400;
/** Entries one read returns at most. */
const READ_COUNT = 500;
/**
 * A publish whose offset another publisher took first is tried again this many times, after a random pause that
 * grows with each loss (up to {@link MAX_PUBLISH_BACKOFF_MS}): without it, a publisher whose rival publishes in a
 * tight loop can lose every round (the rival's next append always reaches Redis before the retry).
 */
const MAX_PUBLISH_TRIES = 20;
const MAX_PUBLISH_BACKOFF_MS = 50;
/** How long a command waits for Redis before it fails (Redis down must not hold up a step). */
const COMMAND_TIMEOUT_MS = 2_000;

/**
 * Appends entries at the offset the publisher expects, atomically, or says which offset is next instead. Offsets are
 * dense and given out here, so entries from concurrent publishers (a step's model call, its tools' progress) are in
 * one order; the publisher authenticates each entry with its offset before the call, so when another took that
 * offset first the publisher signs again for the next one. KEYS: stream, next-offset counter. ARGV: expected offset,
 * max length, TTL seconds, then per entry: topic, data, attempt, code. Returns {1, next} or {0, next}.
 */
const PUBLISH_SCRIPT = `
local next = tonumber(redis.call('GET', KEYS[2]) or '0')
if next ~= tonumber(ARGV[1]) then return {0, next} end
for i = 4, #ARGV, 4 do
  redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'o', tostring(next), 't', ARGV[i], 'd', ARGV[i + 1],
    'a', ARGV[i + 2], 'm', ARGV[i + 3])
  next = next + 1
end
redis.call('SET', KEYS[2], tostring(next), 'EX', ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return {1, next}
`;

/** The Redis key of a run's stream and of its next-offset counter; the hash tag keeps both on one cluster slot. */
export function liveStreamKeys(prefix: string, run: LiveRunRef): { stream: string; next: string } {
  const base = `${prefix}:{${run.workflowId}:${run.firstRunId}}`;
  return { stream: `${base}:stream`, next: `${base}:next` };
}

/**
 * A run's live stream on Redis Streams (Redis 7+, Valkey): one stream per run, every entry carrying its offset
 * (`o`), topic (`t`), data (`d`), the publishing attempt (`a`) and its authentication code (`m`, see entryMac).
 * Readers block on XREAD; what a reader gets is verified, in offset order, never repeated, with an explicit gap
 * where entries were trimmed. Publishing never throws for Redis being down in a way that could fail a step: callers
 * catch, and {@link failures} counts.
 */
export class RedisLiveStream implements LiveStream {
  readonly failures = { publish: 0, read: 0 };
  private readonly key: Uint8Array;
  private readonly maxLen: number;
  private readonly ttlSeconds: number;
  private readonly prefix: string;
  /** The connection publishes and non-blocking reads share. */
  private redis: Redis;
  /** Connections of readers' blocking reads: an XREAD BLOCK holds its connection, so each reader has its own. */
  private readonly readers = new Set<Redis>();
  /** The next offset each run's last publish here ended at: the first guess of the next publish. */
  private readonly nextOffsets = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: RedisLiveStreamOptions) {
    this.key = typeof options.key === 'string' ? new TextEncoder().encode(options.key) : options.key;
    if (this.key.length < 16) {
      throw new TypeError('The live stream key must be at least 16 bytes (DURABLE_AGENT_STREAM_KEY).');
    }
    if (!/^rediss?:\/\//.test(options.url)) {
      throw new TypeError(`The live stream's Redis URL must start with redis:// or rediss://, not '${options.url}'.`);
    }
    this.maxLen = options.maxLen ?? DEFAULT_MAX_LEN;
    this.ttlSeconds = options.ttlSeconds ?? DEFAULT_TTL_SECONDS;
    if (!Number.isSafeInteger(this.maxLen) || this.maxLen < 100)
      throw new RangeError('maxLen must be an integer >= 100.');
    if (!Number.isSafeInteger(this.ttlSeconds) || this.ttlSeconds < 1) {
      throw new RangeError('ttlSeconds must be a positive integer.');
    }
    this.prefix = options.prefix ?? 'durable-agent:live';
    this.redis = this.sharedConnection();
  }

  /**
   * The connection publishes and non-blocking reads share. It alone never keeps a process alive (a CLI that read a
   * run exits when it is done): its socket is unref'd, a command in flight is held by its timeout timer, and a
   * blocking read by its reader's own connection.
   */
  private sharedConnection(): Redis {
    const redis = this.connect();
    redis.on('connect', () => (redis as unknown as { stream?: { unref?: () => void } }).stream?.unref?.());
    return redis;
  }

  /**
   * A connection that fails commands at once while Redis is away (no per-command retries) and does not reconnect in
   * the background (a reconnect timer would keep a process alive while Redis is down): once it has ended, the next
   * command opens a new one ({@link commands}). A publish while Redis is down fails fast and the step goes on.
   */
  private connect(): Redis {
    const redis = new Redis(this.options.url, {
      // Connects at its first command: a client or worker configured for Redis that never streams opens nothing.
      lazyConnect: true,
      enableOfflineQueue: true,
      maxRetriesPerRequest: 0,
      connectTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: () => null,
      ...(this.options.tls ? { tls: this.options.tls } : {}),
    });
    // ioredis reports connection errors as events; they are counted and logged where a command fails.
    redis.on('error', () => undefined);
    return redis;
  }

  async publish(run: LiveRunRef, attempt: number, entries: readonly LiveEntry[]): Promise<number> {
    const keys = liveStreamKeys(this.prefix, run);
    const runKey = keys.stream;
    let next = this.nextOffsets.get(runKey) ?? 0;
    if (entries.length === 0) return next;
    try {
      for (let tries = 0; tries < MAX_PUBLISH_TRIES; tries++) {
        const args: (string | number)[] = [next, this.maxLen, this.ttlSeconds];
        entries.forEach(({ topic, data }, i) => {
          args.push(topic, data, attempt, entryMac(this.key, run, attempt, next + i, topic, data));
        });
        const [done, at] = (await withTimeout(
          this.commands.eval(PUBLISH_SCRIPT, 2, keys.stream, keys.next, ...args),
          COMMAND_TIMEOUT_MS,
        )) as [number, number];
        next = Number(at);
        this.nextOffsets.set(runKey, next);
        if (this.nextOffsets.size > 10_000) this.nextOffsets.delete(this.nextOffsets.keys().next().value!);
        if (done === 1) return next;
        const pause = Math.random() * Math.min(MAX_PUBLISH_BACKOFF_MS, 2 ** tries);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
      throw new Error(`Could not publish to the live stream of '${run.workflowId}': its offset kept moving.`);
    } catch (error) {
      this.failures.publish++;
      throw error;
    }
  }

  reader(run: LiveRunRef, from: number): LiveReader {
    if (!Number.isSafeInteger(from) || from < 0)
      throw new RangeError(`A live stream offset must be >= 0, not ${from}.`);
    if (this.closed) throw new Error('This live stream was closed.');
    return new RedisLiveReader(this, this.key, run, liveStreamKeys(this.prefix, run).stream, from);
  }

  /** The shared connection (non-blocking reads). */
  get commands(): Redis {
    // Ended (Redis went away, or never answered): a new connection, which connects at its first command.
    if (this.redis.status === 'end' && !this.closed) {
      this.redis.disconnect();
      this.redis = this.sharedConnection();
    }
    return this.redis;
  }

  /** A connection of its own for a reader's blocking reads, closed with this transport at the latest. */
  blockingConnection(): Redis {
    const redis = this.connect();
    this.readers.add(redis);
    return redis;
  }

  /** A reader let its connection go. */
  released(redis: Redis): void {
    this.readers.delete(redis);
    redis.disconnect();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const redis of this.readers) redis.disconnect();
    this.readers.clear();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/**
 * Reads a run's stream forward from an offset: the first read finds the offset with XRANGE pages (entries before it
 * are skipped), later ones go on after the last entry id read, with XREAD BLOCK when nothing is there yet.
 */
class RedisLiveReader implements LiveReader {
  /** The last entry id read; undefined until the reader found its place. */
  private lastId: string | undefined;
  private blocking: Redis | undefined;
  private closed = false;

  constructor(
    private readonly transport: RedisLiveStream,
    private readonly key: Uint8Array,
    private readonly run: LiveRunRef,
    private readonly stream: string,
    private next: number,
  ) {}

  async read(options: { blockMs?: number; signal?: AbortSignal } = {}): Promise<LiveRead> {
    try {
      const accept = new Acceptor(this.key, this.run, this.next, this.lastId !== undefined);
      if (this.lastId === undefined) {
        await this.scan(accept);
      } else {
        const entries = (await withTimeout(
          this.transport.commands.xrange(this.stream, `(${this.lastId}`, '+', 'COUNT', READ_COUNT),
          COMMAND_TIMEOUT_MS,
        )) as [string, string[]][];
        this.take(accept, entries);
      }
      const deadline = Date.now() + (options.blockMs ?? 0);
      while (!accept.done && !options.signal?.aborted && !this.closed) {
        const wait = deadline - Date.now();
        if (wait <= 0) break;
        const entries = await this.blockingRead(wait, options.signal);
        if (!entries) break;
        this.take(accept, entries);
      }
      const result = accept.result();
      this.next = result.next;
      return result;
    } catch (error) {
      this.transport.failures.read++;
      throw error;
    }
  }

  /** The first read: XRANGE pages from the stream's start until an item at or after the offset comes. */
  private async scan(accept: Acceptor): Promise<void> {
    let start = '-';
    for (;;) {
      const entries = (await withTimeout(
        this.transport.commands.xrange(this.stream, start, '+', 'COUNT', READ_COUNT),
        COMMAND_TIMEOUT_MS,
      )) as [string, string[]][];
      this.take(accept, entries);
      if (entries.length < READ_COUNT || accept.done) break;
      start = `(${this.lastId!}`;
    }
    // An empty stream: wait after the smallest id.
    this.lastId ??= '0-0';
    accept.resumed = true;
  }

  /** Hands entries to `accept` until it is done; remembers the last one it took. */
  private take(accept: Acceptor, entries: [string, string[]][]): void {
    for (const [id, fields] of entries) {
      if (!accept.entry(fields)) return;
      this.lastId = id;
    }
  }

  /** One XREAD BLOCK; an abort disconnects its connection (the read resolves with nothing). */
  private async blockingRead(ms: number, signal: AbortSignal | undefined): Promise<[string, string[]][] | undefined> {
    const redis = (this.blocking ??= this.transport.blockingConnection());
    const onAbort = (): void => this.drop();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const reply = (await redis.xread(
        'COUNT',
        READ_COUNT,
        'BLOCK',
        Math.max(1, Math.round(ms)),
        'STREAMS',
        this.stream,
        this.lastId!,
      )) as [string, [string, string[]][]][] | null;
      return reply?.[0]?.[1] ?? [];
    } catch (error) {
      this.drop();
      if (signal?.aborted || this.closed) return undefined;
      throw error;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Lets the blocking connection go (a new read opens another). */
  private drop(): void {
    if (this.blocking) this.transport.released(this.blocking);
    this.blocking = undefined;
  }

  close(): void {
    this.closed = true;
    this.drop();
  }
}

/**
 * Checks the entries one read reads, in stream order: keeps those whose code verifies, from the offset expected on,
 * and drops forged ones and repeats of an offset already read. A jump past the expected offset is a gap: reported
 * when it comes first in a read, else the read ends before it (the next read reports it).
 */
class Acceptor {
  readonly items: LiveItem[] = [];
  rejected = 0;
  private gap: { missedFrom: number; offset: number } | undefined;
  private full = false;

  constructor(
    private readonly key: Uint8Array,
    private readonly run: LiveRunRef,
    private next: number,
    /** Whether the reader found its place: then an entry before its offset is one it read already, a replay. */
    public resumed: boolean,
  ) {}

  /** Whether this read has what it returns: items, a gap, or a full page. */
  get done(): boolean {
    return this.full || this.items.length > 0 || this.gap !== undefined;
  }

  /** Takes one entry's fields; false when the read ends before it (it is read again next time). */
  entry(fields: string[]): boolean {
    const get = (name: string): string | undefined => {
      for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
      return undefined;
    };
    const offset = plainInteger(get('o'));
    const attempt = plainInteger(get('a'));
    const topic = get('t');
    const data = get('d');
    const mac = get('m');
    if (
      offset === undefined ||
      attempt === undefined ||
      topic === undefined ||
      data === undefined ||
      mac === undefined ||
      !verifyEntryMac(this.key, this.run, attempt, offset, topic, data, mac)
    ) {
      this.rejected++;
      return true;
    }
    // Before the offset expected: a genuine entry added again (a replay), or one before where the reader started.
    if (offset < this.next) {
      if (this.resumed || this.items.length > 0) this.rejected++;
      return true;
    }
    if (offset > this.next) {
      if (this.items.length > 0) return false;
      this.gap = { missedFrom: this.next, offset };
    }
    this.items.push({ topic, data, offset });
    this.next = offset + 1;
    if (this.items.length >= READ_COUNT) this.full = true;
    return true;
  }

  result(): LiveRead {
    return { items: this.items, next: this.next, rejected: this.rejected, ...(this.gap ? { gap: this.gap } : {}) };
  }
}

/**
 * The integer a field holds when it is written as publishers write one: plain decimal digits, no sign, no leading
 * zero, a safe integer. Anything else (`""`, `1.0`, `0x1`, `1e3`, ` 1`, `01`) is undefined: the entry is not a
 * publisher's, though `Number()` would read some of them as the same number.
 */
function plainInteger(field: string | undefined): number | undefined {
  if (field === undefined || !/^(?:0|[1-9][0-9]*)$/.test(field)) return undefined;
  const value = Number(field);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** `promise`, or a rejection after `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms.`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Logs a live stream failure, at most a few times per `counter` so a Redis that is down does not flood the log. */
export function logLiveFailure(
  what: string,
  count: number,
  error: unknown,
  details: Record<string, unknown> = {},
): void {
  if (count > 3 && count % 100 !== 0) return;
  getGlobalLogger().warn(`${what} (failure ${count}); the run goes on and its history has the answer`, {
    ...details,
    err: String(error),
  });
}
