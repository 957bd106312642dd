import { afterEach, beforeEach } from 'vitest';
import { getGlobalLogger, setGlobalLogger, type LogLevel, type Logger } from '../../../src/logger.js';

/** One captured log call. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  meta: unknown;
}

/**
 * Routes the library's logger into an array for the tests of the calling file, restoring the previous logger
 * after each test. Returns the live array (emptied before each test).
 */
export function captureLogs(): LogEntry[] {
  const entries: LogEntry[] = [];
  let previous: Logger | undefined;
  beforeEach(() => {
    entries.length = 0;
    previous = getGlobalLogger();
    const record =
      (level: LogLevel) =>
      (message: string, meta?: unknown): void => {
        entries.push({ level, message, meta });
      };
    setGlobalLogger({ debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') });
  });
  afterEach(() => {
    if (previous) setGlobalLogger(previous);
  });
  return entries;
}

/** The messages of the captured entries at one level. */
export function messagesAt(entries: readonly LogEntry[], level: LogLevel): string[] {
  return entries.filter((entry) => entry.level === level).map((entry) => entry.message);
}
