import { getGlobalLogger } from '../logger.js';
import { race } from './abortable.js';
import { fingerprint } from './config-fingerprint.js';
import { McpConnection } from './connection.js';
import { McpServerError } from './errors/mcp-server-error.js';
import { collectSecrets, createRedactor, type Redactor } from './secrets.js';
import type { MCPServerConfig } from './types.js';

/** Options of {@link McpConnectionPool}. All durations in milliseconds. */
export interface McpConnectionPoolOptions {
  /** Connections per server (a call with its own elicitation handler needs one to itself). Default 4. */
  maxConnectionsPerServer?: number;
  /** A connection unused for this long is closed. Default 300000 (5 min). */
  idleTimeoutMs?: number;
  /** Time allowed for spawning/reaching a server and the MCP handshake. Default 20000. */
  connectTimeoutMs?: number;
  /** How long a call may wait for a free connection when all are busy. Default 60000. */
  acquireTimeoutMs?: number;
  /**
   * After a failed connect, new attempts are refused for `initialMs`, doubling per further failure up to
   * `maxMs` (defaults 1000 and 30000): a server that is down is not hammered by every call. A success resets it.
   */
  backoff?: { initialMs?: number; maxMs?: number };
  /**
   * A server that failed `failures` connects in a row (default 2) is skipped for `openMs` (default 30000,
   * doubling each time it opens again, up to `maxOpenMs`, default 600000): every acquire fails at once instead of
   * waiting out another connect timeout, in every run on this worker. Then one trial connect is let through
   * (others still fail at once); its success closes the circuit. See {@link McpConnectionPool.health}.
   */
  circuitBreaker?: { failures?: number; openMs?: number; maxOpenMs?: number };
  /** How the client introduces itself to servers. Default `{ name: 'durable-agent', version: '0.1.0' }`. */
  clientInfo?: { name: string; version: string };
}

/** A server as the pool knows it: its name and its configuration (which may hold secrets). */
export interface McpServerTarget {
  serverName: string;
  config: MCPServerConfig;
}

/** A server's health as this worker's pool sees it (see {@link McpConnectionPoolOptions.circuitBreaker}). */
export interface McpServerHealth {
  /** `closed`: connects are tried; `open`: refused until `retryAt`; `half-open`: one trial connect is running. */
  circuit: 'closed' | 'open' | 'half-open';
  /** Connect failures in a row. */
  failures: number;
  /** For `open`: when a trial connect will be let through (epoch ms). */
  retryAt?: number;
  /** The last connect failure's message (secrets redacted). */
  lastError?: string;
}

/** A connection handed out by {@link McpConnectionPool.acquire}. Release it exactly once. */
export interface McpLease {
  readonly connection: McpConnection;
  release(): void;
}

/** Called when a server sends `notifications/tools/list_changed`. */
export type McpListChangedListener = (serverName: string) => void;

interface PoolEntry {
  serverName: string;
  config: MCPServerConfig;
  redactor: Redactor;
  connections: Set<McpConnection>;
  leases: Map<McpConnection, number>;
  idleTimers: Map<McpConnection, ReturnType<typeof setTimeout>>;
  connecting: number;
  pendingShared?: Promise<McpConnection>;
  waiters: Set<() => void>;
  failures: number;
  retryAt: number;
  lastFailure?: McpServerError;
  /** Times the circuit opened since the last successful connect (its open time doubles each time). */
  circuitOpens: number;
  circuitOpenUntil: number;
  trialRunning: boolean;
  /** `tools/list_changed` notifications seen so far. */
  listChanges: number;
  /** Listing version → `listChanges` when it was produced (a few recent versions). */
  listings: Map<string, number>;
  latestListing?: string;
}

const MAX_REMEMBERED_LISTINGS = 16;

/**
 * The worker's MCP connections, shared by every run and call on the worker. Keyed by server name and
 * configuration (two agents with the same server config share connections; a changed config gets new ones).
 *
 * - Reuse: calls without an elicitation handler share a connection (MCP multiplexes requests); a call with its
 *   own handler gets a connection to itself, because MCP does not say which request an elicitation belongs to.
 * - Health: a connection whose process exits, socket closes or session expires is closed and evicted; the next
 *   call opens a fresh one. Idle connections close after `idleTimeoutMs`.
 * - Failure: a failed connect puts the server in back-off (see {@link McpConnectionPoolOptions.backoff}); calls
 *   in that window fail at once with `retryAfterMs`, so a retry policy waits instead of storming the server.
 * - Shutdown: {@link close} ends every connection (stdio processes included); call it when the worker stops.
 *
 * Not safe to share across processes; one per worker process.
 */
export class McpConnectionPool {
  private readonly entries = new Map<string, PoolEntry>();
  private readonly listeners = new Set<McpListChangedListener>();
  private readonly options: Required<Omit<McpConnectionPoolOptions, 'backoff' | 'circuitBreaker'>> & {
    backoff: { initialMs: number; maxMs: number };
    circuitBreaker: { failures: number; openMs: number; maxOpenMs: number };
  };
  private closedFlag = false;

  constructor(options: McpConnectionPoolOptions = {}) {
    this.options = {
      maxConnectionsPerServer: Math.max(1, options.maxConnectionsPerServer ?? 4),
      idleTimeoutMs: options.idleTimeoutMs ?? 300_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 20_000,
      acquireTimeoutMs: options.acquireTimeoutMs ?? 60_000,
      backoff: { initialMs: options.backoff?.initialMs ?? 1000, maxMs: options.backoff?.maxMs ?? 30_000 },
      circuitBreaker: {
        failures: Math.max(1, options.circuitBreaker?.failures ?? 2),
        openMs: options.circuitBreaker?.openMs ?? 30_000,
        maxOpenMs: options.circuitBreaker?.maxOpenMs ?? 600_000,
      },
      clientInfo: options.clientInfo ?? { name: 'durable-agent', version: '0.1.0' },
    };
  }

  /** True after {@link close}. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /**
   * A connection to the server: an existing one when possible, else a new one (up to the per-server maximum),
   * else the first to become free. `exclusive` leases never share. Throws a classified {@link McpServerError}
   * (`connect-failed`, `timeout`, `pool-closed`), or the signal's reason when `signal` aborts.
   */
  async acquire(
    target: McpServerTarget,
    options: { exclusive?: boolean; signal?: AbortSignal } = {},
  ): Promise<McpLease> {
    const entry = this.entryFor(target);
    const exclusive = options.exclusive ?? false;
    const deadline = Date.now() + this.options.acquireTimeoutMs;
    for (;;) {
      this.assertOpen(entry);
      if (options.signal?.aborted) throw options.signal.reason;
      const ready = this.pick(entry, exclusive);
      if (ready) return this.lease(entry, ready, exclusive);
      if (entry.connections.size + entry.connecting < this.options.maxConnectionsPerServer) {
        if (!exclusive && entry.pendingShared) {
          await race(
            entry.pendingShared.catch(() => undefined),
            options.signal,
          );
          continue;
        }
        this.assertNotBackingOff(entry);
        this.assertCircuitLets(entry);
        const opening = this.open(entry);
        if (!exclusive) {
          entry.pendingShared = opening;
          // Both callbacks, so a failed open never becomes an unhandled rejection of this derived promise.
          const clear = (): void => {
            if (entry.pendingShared === opening) entry.pendingShared = undefined;
          };
          opening.then(clear, clear);
        }
        const connection = await race(opening, options.signal);
        if (this.canLease(entry, connection, exclusive)) return this.lease(entry, connection, exclusive);
        continue;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new McpServerError({
          serverName: entry.serverName,
          reason: 'timeout',
          message:
            `All ${this.options.maxConnectionsPerServer} connections to MCP server '${entry.serverName}' stayed busy ` +
            `for ${this.options.acquireTimeoutMs} ms; raise maxConnectionsPerServer or acquireTimeoutMs.`,
        });
      }
      await this.waitForChange(entry, remaining, options.signal);
    }
  }

  /** Runs `fn` with a leased connection and releases it afterwards. */
  async use<T>(
    target: McpServerTarget,
    options: { exclusive?: boolean; signal?: AbortSignal },
    fn: (connection: McpConnection) => Promise<T>,
  ): Promise<T> {
    const lease = await this.acquire(target, options);
    try {
      return await fn(lease.connection);
    } finally {
      lease.release();
    }
  }

  /** The redactor for a server's configured secrets. */
  redactor(target: McpServerTarget): Redactor {
    return this.entryFor(target).redactor;
  }

  /** Records that a listing with `version` was just produced for the server (see {@link isListingStale}). */
  noteListing(target: McpServerTarget, version: string): void {
    const entry = this.entryFor(target);
    entry.listings.delete(version);
    entry.listings.set(version, entry.listChanges);
    entry.latestListing = version;
    while (entry.listings.size > MAX_REMEMBERED_LISTINGS) {
      entry.listings.delete(entry.listings.keys().next().value as string);
    }
  }

  /**
   * True when this worker knows the listing `version` is out of date: the server sent `tools/list_changed`
   * after it was produced, or this worker has since listed the server with a different result. False when it
   * knows of no change (a listing made on another worker, and no notification here since the pool started).
   */
  isListingStale(target: McpServerTarget, version: string): boolean {
    const entry = this.entryFor(target);
    if (entry.latestListing !== undefined && entry.latestListing !== version) return true;
    const changesAtListing = entry.listings.get(version) ?? 0;
    return entry.listChanges > changesAtListing;
  }

  /** Subscribes to `tools/list_changed` notifications of every server; returns the unsubscribe function. */
  onListChanged(listener: McpListChangedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Open connections to a server and how many are leased (for tests and metrics). */
  stats(target: McpServerTarget): { connections: number; leased: number; connecting: number; failures: number } {
    const entry = this.entryFor(target);
    let leased = 0;
    for (const count of entry.leases.values()) if (count > 0) leased += 1;
    return { connections: entry.connections.size, leased, connecting: entry.connecting, failures: entry.failures };
  }

  /** The server's circuit breaker state on this worker (shown in a run's `state().mcpServers` when it fails). */
  health(target: McpServerTarget): McpServerHealth {
    const entry = this.entryFor(target);
    const circuit = entry.trialRunning ? 'half-open' : entry.circuitOpenUntil > Date.now() ? 'open' : 'closed';
    return {
      circuit,
      failures: entry.failures,
      ...(circuit === 'open' ? { retryAt: entry.circuitOpenUntil } : {}),
      ...(entry.lastFailure ? { lastError: entry.lastFailure.message } : {}),
    };
  }

  /** Closes one server's connections and forgets its back-off and circuit (the next call reconnects at once). */
  async closeServer(target: McpServerTarget): Promise<void> {
    const entry = this.entryFor(target);
    entry.failures = 0;
    entry.retryAt = 0;
    entry.lastFailure = undefined;
    entry.circuitOpens = 0;
    entry.circuitOpenUntil = 0;
    await Promise.all([...entry.connections].map((connection) => connection.close()));
  }

  /** Closes every connection and refuses further use. Idempotent. Call it on worker shutdown. */
  async close(): Promise<void> {
    this.closedFlag = true;
    const closing: Promise<void>[] = [];
    for (const entry of this.entries.values()) {
      for (const connection of entry.connections) closing.push(connection.close());
      this.notify(entry);
    }
    await Promise.all(closing);
  }

  private entryFor(target: McpServerTarget): PoolEntry {
    const key = `${target.serverName}\u0000${fingerprint(target.config)}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {
        serverName: target.serverName,
        config: target.config,
        redactor: createRedactor(collectSecrets(target.config)),
        connections: new Set(),
        leases: new Map(),
        idleTimers: new Map(),
        connecting: 0,
        waiters: new Set(),
        failures: 0,
        retryAt: 0,
        circuitOpens: 0,
        circuitOpenUntil: 0,
        trialRunning: false,
        listChanges: 0,
        listings: new Map(),
      };
      this.entries.set(key, entry);
    }
    return entry;
  }

  private assertOpen(entry: PoolEntry): void {
    if (!this.closedFlag) return;
    throw new McpServerError({
      serverName: entry.serverName,
      reason: 'pool-closed',
      message: `The MCP connection pool is closed (the worker is shutting down); server '${entry.serverName}' cannot be reached.`,
    });
  }

  private assertNotBackingOff(entry: PoolEntry): void {
    const wait = entry.retryAt - Date.now();
    if (wait <= 0 || !entry.lastFailure) return;
    throw new McpServerError({
      serverName: entry.serverName,
      reason: 'connect-failed',
      retryAfterMs: wait,
      message: `${entry.lastFailure.message}; not retrying for another ${wait} ms.`,
    });
  }

  /**
   * Refuses at once while the circuit is open, and while its one trial connect runs: a hung server then costs
   * each run nothing instead of a connect timeout. Marks the connect about to start as the trial when one is due.
   */
  private assertCircuitLets(entry: PoolEntry): void {
    if (entry.failures < this.options.circuitBreaker.failures || !entry.lastFailure) return;
    const wait = entry.circuitOpenUntil - Date.now();
    if (wait <= 0 && !entry.trialRunning) {
      entry.trialRunning = true;
      return;
    }
    const when = entry.trialRunning ? 'a trial connect is running' : `the next trial is in ${wait} ms`;
    throw new McpServerError({
      serverName: entry.serverName,
      reason: 'connect-failed',
      message:
        `MCP server '${entry.serverName}' is skipped by this worker's circuit breaker after ${entry.failures} ` +
        `failed connects in a row (${when}); last failure: ${entry.lastFailure.message}`,
    });
  }

  private pick(entry: PoolEntry, exclusive: boolean): McpConnection | undefined {
    let best: McpConnection | undefined;
    let bestLoad = Infinity;
    for (const connection of entry.connections) {
      if (!this.canLease(entry, connection, exclusive)) continue;
      const load = entry.leases.get(connection) ?? 0;
      if (load < bestLoad) {
        best = connection;
        bestLoad = load;
      }
    }
    return best;
  }

  private canLease(entry: PoolEntry, connection: McpConnection, exclusive: boolean): boolean {
    if (connection.closed || connection.exclusive || !entry.connections.has(connection)) return false;
    return !exclusive || (entry.leases.get(connection) ?? 0) === 0;
  }

  private lease(entry: PoolEntry, connection: McpConnection, exclusive: boolean): McpLease {
    const timer = entry.idleTimers.get(connection);
    if (timer) clearTimeout(timer);
    entry.idleTimers.delete(connection);
    entry.leases.set(connection, (entry.leases.get(connection) ?? 0) + 1);
    if (exclusive) connection.exclusive = true;
    let released = false;
    return {
      connection,
      release: () => {
        if (released) return;
        released = true;
        if (exclusive) connection.exclusive = false;
        const left = (entry.leases.get(connection) ?? 1) - 1;
        entry.leases.set(connection, left);
        if (left === 0 && !connection.closed) this.armIdleTimer(entry, connection);
        this.notify(entry);
      },
    };
  }

  private armIdleTimer(entry: PoolEntry, connection: McpConnection): void {
    const timer = setTimeout(() => {
      entry.idleTimers.delete(connection);
      if ((entry.leases.get(connection) ?? 0) === 0) void connection.close();
    }, this.options.idleTimeoutMs);
    // An idle connection must not keep the worker process alive.
    timer.unref();
    entry.idleTimers.set(connection, timer);
  }

  private async open(entry: PoolEntry): Promise<McpConnection> {
    entry.connecting += 1;
    try {
      const connection = await McpConnection.open({
        serverName: entry.serverName,
        config: entry.config,
        clientInfo: this.options.clientInfo,
        connectTimeoutMs: this.options.connectTimeoutMs,
        redactor: entry.redactor,
        onListChanged: () => this.listChanged(entry),
        onClosed: (closed) => this.evict(entry, closed),
      });
      entry.failures = 0;
      entry.retryAt = 0;
      entry.lastFailure = undefined;
      entry.circuitOpens = 0;
      entry.circuitOpenUntil = 0;
      if (this.closedFlag) {
        await connection.close();
        this.assertOpen(entry);
      }
      entry.connections.add(connection);
      entry.leases.set(connection, 0);
      // Armed until the first lease: a connection opened for a caller that gave up meanwhile still closes when idle.
      this.armIdleTimer(entry, connection);
      return connection;
    } catch (error) {
      if (!(error instanceof McpServerError) || error.reason !== 'connect-failed') throw error;
      entry.failures += 1;
      const delay = Math.min(
        this.options.backoff.maxMs,
        this.options.backoff.initialMs * 2 ** Math.min(entry.failures - 1, 20),
      );
      entry.retryAt = Date.now() + delay;
      const failure = new McpServerError({
        serverName: entry.serverName,
        reason: 'connect-failed',
        retryAfterMs: delay,
        message: error.message,
      });
      entry.lastFailure = failure;
      const breaker = this.options.circuitBreaker;
      if (entry.failures >= breaker.failures) {
        const openMs = Math.min(breaker.maxOpenMs, breaker.openMs * 2 ** Math.min(entry.circuitOpens, 20));
        entry.circuitOpens += 1;
        entry.circuitOpenUntil = Date.now() + openMs;
        getGlobalLogger().error(
          `${failure.message}; the circuit breaker skips server '${entry.serverName}' for ${openMs} ms ` +
            `(${entry.failures} failed connects in a row).`,
        );
      } else {
        getGlobalLogger().error(`${failure.message}; next attempt in ${delay} ms at the earliest.`);
      }
      throw failure;
    } finally {
      entry.trialRunning = false;
      entry.connecting -= 1;
      this.notify(entry);
    }
  }

  private evict(entry: PoolEntry, connection: McpConnection): void {
    entry.connections.delete(connection);
    entry.leases.delete(connection);
    const timer = entry.idleTimers.get(connection);
    if (timer) clearTimeout(timer);
    entry.idleTimers.delete(connection);
    this.notify(entry);
  }

  private listChanged(entry: PoolEntry): void {
    entry.listChanges += 1;
    for (const listener of this.listeners) {
      try {
        listener(entry.serverName);
      } catch (error) {
        getGlobalLogger().warn(`A tools/list_changed listener failed: ${(error as Error)?.message ?? String(error)}`);
      }
    }
  }

  private notify(entry: PoolEntry): void {
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    for (const wake of waiters) wake();
  }

  private waitForChange(entry: PoolEntry, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        entry.waiters.delete(done);
        resolve();
      };
      const onAbort = (): void => {
        done();
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(done, timeoutMs);
      entry.waiters.add(done);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
