/**
 * The library's logging seam. Every warning and error the tool library emits goes through the global logger, so
 * an application (or a test) can route or capture them with {@link setGlobalLogger}.
 */
export interface Logger {
  debug(message: string, meta?: unknown): void;
  info(message: string, meta?: unknown): void;
  warn(message: string, meta?: unknown): void;
  error(message: string, meta?: unknown): void;
  /**
   * False when messages at `level` are dropped: callers then skip the work of building them (an MCP server's
   * stderr is redacted and formatted only when it will be logged). Without it, every level counts as enabled.
   */
  isLevelEnabled?(level: LogLevel): boolean;
}

/** Severity names, in increasing order. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVEL_RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * A logger writing to the console at or above `level` (default `info`, so debug chatter stays quiet).
 * `meta` is passed as a second argument rather than interpolated, so objects stay inspectable.
 */
export function createConsoleLogger(level: LogLevel = 'info'): Logger {
  const write =
    (at: LogLevel, sink: (...args: unknown[]) => void) =>
    (message: string, meta?: unknown): void => {
      if (LEVEL_RANK[at] < LEVEL_RANK[level]) return;
      if (meta === undefined) sink(`[durable-agent] ${message}`);
      else sink(`[durable-agent] ${message}`, meta);
    };
  return {
    debug: write('debug', console.debug),
    info: write('info', console.info),
    warn: write('warn', console.warn),
    error: write('error', console.error),
    isLevelEnabled: (at: LogLevel) => LEVEL_RANK[at] >= LEVEL_RANK[level],
  };
}

let globalLogger: Logger = createConsoleLogger();

/** The logger the library currently writes to. Read it at the moment of logging, not at import time. */
export function getGlobalLogger(): Logger {
  return globalLogger;
}

/** Replaces the library's logger (for example with pino, or with a capturing logger in tests). */
export function setGlobalLogger(logger: Logger): void {
  globalLogger = logger;
}
