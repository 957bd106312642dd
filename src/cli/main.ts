#!/usr/bin/env node
// The `durable-agent` command line: start, watch, approve and cancel durable agent runs. `main(argv, io)` is the
// whole program and can be called in-process (tests capture its output); run as a script it uses the real
// process streams, environment and Ctrl-C.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AgentClient } from '../client/agent-client.js';
import { DEFAULT_TASK_QUEUE } from '../protocol/index.js';
import { parseCommand } from './args.js';
import { CliFailure } from './errors/cli-failure.js';
import { CliUsageError } from './errors/cli-usage-error.js';
import { explainError, type ConnectionInfo } from './explain-error.js';
import { INTERRUPTED, runCommand } from './run-command.js';
import { createStyle, shouldColor } from './style.js';
import { CLI_NAME, usage } from './usage.js';

/** A writable text stream: `process.stdout` or a test's capture. */
export interface CliOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Where the CLI reads and writes. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /** Connection settings and colour switches. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** Aborting it stops a running `watch` (Ctrl-C). */
  signal?: AbortSignal;
  /** A client to use instead of connecting from the environment; `main` does not close it. */
  client?: AgentClient;
  /** How long a query or decision waits for a worker to answer. Default 20 s. */
  requestTimeoutMs?: number;
}

/** Exit status of a command line that does not parse. */
export const USAGE_ERROR = 2;

/**
 * Runs the CLI on `argv` (the arguments after the script name) and resolves with the exit status: 0 on success,
 * 1 on failure (or a watched run that failed or was cancelled), 2 on bad usage, 130 when a watch is interrupted.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const env = io.env ?? process.env;
  const style = createStyle(shouldColor(io.stdout, env));
  const errStyle = createStyle(shouldColor(io.stderr, env));
  const out = (text: string) => io.stdout.write(`${text}\n`);
  const note = (text: string) => io.stderr.write(`${text}\n`);
  const fail = (message: string) => note(`${errStyle.red('error:')} ${message}`);

  let command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!CliUsageError.isInstance(error)) throw error;
    fail(error.message);
    note(errStyle.dim(`Run '${CLI_NAME} help${error.command ? ` ${error.command}` : ''}' for usage.`));
    return USAGE_ERROR;
  }
  if (command.name === 'help') {
    out(usage(command.topic));
    return 0;
  }

  const connection: ConnectionInfo = {
    address: env.TEMPORAL_ADDRESS || 'localhost:7233',
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE,
  };
  let client = io.client;
  try {
    client ??= await AgentClient.connect(connection);
  } catch (error) {
    fail(explainError(error, connection).message);
    return 1;
  }
  try {
    return await runCommand(command, {
      client,
      connection,
      out,
      note,
      style,
      env,
      ...(io.signal ? { signal: io.signal } : {}),
      requestTimeoutMs: io.requestTimeoutMs ?? 20_000,
    });
  } catch (error) {
    if (io.signal?.aborted) return INTERRUPTED;
    const explained = explainError(error, connection);
    fail(explained.message);
    if (CliUsageError.isInstance(explained)) return USAGE_ERROR;
    if (CliFailure.isInstance(explained) && env.DEBUG) note(String(explained.cause));
    return 1;
  } finally {
    if (!io.client) await client.temporal.connection.close();
  }
}

/** Whether this module is the program being run (also through an npm `bin` symlink), not an import. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const interrupt = new AbortController();
  // The first Ctrl-C ends a watch cleanly; a second one gets Node's default (exit at once).
  process.once('SIGINT', () => interrupt.abort());
  process.exitCode = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    signal: interrupt.signal,
  });
}
