// The `durable-agent` command line: start, watch, approve and cancel durable agent runs. `main(argv, io)` is the
// whole program and can be called in-process (tests capture its output); `runCli()` runs it on the real process
// (bin/durable-agent.mjs calls it). Connection settings come from Temporal's environment configuration.
import { AgentClient } from '../client/agent-client.js';
import { DEFAULT_TEMPORAL_ADDRESS, DEFAULT_TEMPORAL_NAMESPACE } from '../connection/resolve-connection.js';
import { projectTaskQueue } from '../connection/project-task-queue.js';
import { parseCommand } from './args.js';
import { CliFailure } from './errors/cli-failure.js';
import { CliUsageError } from './errors/cli-usage-error.js';
import { explainError, type ConnectionInfo } from './explain-error.js';
import { devCommand } from './host/dev-command.js';
import { workerCommand } from './host/worker-command.js';
import { initCommand } from './init/init-command.js';
import { createPrompter } from './prompter.js';
import { INTERRUPTED, runCommand } from './run-command.js';
import { createStyle, shouldColor } from './style.js';
import { terminalSafe } from './terminal-text.js';
import { CLI_COMMAND, usage } from './usage.js';

/** A writable text stream: `process.stdout` or a test's capture. */
export interface CliOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** A readable stream a person types into: `process.stdin` or a test's stream. */
export type CliInput = NodeJS.ReadableStream & { isTTY?: boolean };

/** Where the CLI reads and writes. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
  /**
   * Where a person answers questions (deciding a pending approval during `watch`). Asked only when both this and
   * `stdout` are terminals (`isTTY`), unless `--no-prompt`. Default: none, nothing is asked.
   */
  stdin?: CliInput;
  /** Connection settings (`TEMPORAL_*`, `temporal.toml`) and colour switches. Default: `process.env`. */
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

const DEFAULT_REQUEST_TIMEOUT_MS = 20_000;

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
  // Messages can quote what a server, a run or a model said: keep escape sequences out of the terminal.
  const fail = (message: string) => note(`${errStyle.red('error:')} ${terminalSafe(message)}`);

  let command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (!CliUsageError.isInstance(error)) throw error;
    fail(error.message);
    note(errStyle.dim(`Run '${CLI_COMMAND} help${error.command ? ` ${error.command}` : ''}' for usage.`));
    return USAGE_ERROR;
  }
  if (command.name === 'help') {
    out(usage(command.topic));
    return 0;
  }
  // Commands that need no client: they write files or host agents.
  if (command.name === 'init' || command.name === 'dev' || command.name === 'worker') {
    try {
      if (command.name === 'init') return initCommand(command.dir, command.force, out);
      const host = { out, note, env, ...(io.signal ? { signal: io.signal } : {}) };
      return await (command.name === 'dev' ? devCommand : workerCommand)(command.agentsFile, host);
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error));
      return 1;
    }
  }

  const requestTimeoutMs = io.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const fallback: ConnectionInfo = {
    address: env.TEMPORAL_ADDRESS || DEFAULT_TEMPORAL_ADDRESS,
    namespace: env.TEMPORAL_NAMESPACE || DEFAULT_TEMPORAL_NAMESPACE,
    // The queue the worker of the project here polls (`durable-agent worker`, `dev`, the project's own scripts).
    taskQueue: projectTaskQueue({ env }),
  };
  let client = io.client;
  try {
    client ??= await AgentClient.connect({ env, requestTimeoutMs, taskQueue: fallback.taskQueue });
  } catch (error) {
    fail(explainError(error, fallback).message);
    return 1;
  }
  const settings = client.connectionSettings;
  const connection: ConnectionInfo = settings
    ? { address: settings.address, namespace: settings.namespace, taskQueue: fallback.taskQueue }
    : fallback;
  // A chat reads what a person types from any stdin (a terminal, or lines piped in).
  const prompter =
    interactive(io) || (command.name === 'chat' && io.stdin)
      ? createPrompter(io.stdin!, io.stdout, io.signal)
      : undefined;
  try {
    return await runCommand(command, {
      client,
      connection,
      out,
      write: (text: string) => io.stdout.write(text),
      note,
      style,
      env,
      ...(io.signal ? { signal: io.signal } : {}),
      ...(prompter ? { prompter } : {}),
      requestTimeoutMs,
    });
  } catch (error) {
    if (io.signal?.aborted) return INTERRUPTED;
    const explained = explainError(error, connection);
    fail(explained.message);
    if (CliUsageError.isInstance(explained)) return USAGE_ERROR;
    if (CliFailure.isInstance(explained) && env.DEBUG) note(terminalSafe(String(explained.cause)));
    return 1;
  } finally {
    prompter?.close();
    if (!io.client) await client.temporal.connection.close();
  }
}

/** A person is at a terminal: input and output are both TTYs. */
function interactive(io: CliIo): boolean {
  return io.stdin?.isTTY === true && io.stdout.isTTY === true;
}

/**
 * Runs the CLI as the process: real streams, environment and Ctrl-C, and `process.exitCode` set to the status.
 * The first Ctrl-C ends a watch cleanly; a second one gets Node's default (exit at once).
 */
export async function runCli(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const interrupt = new AbortController();
  process.once('SIGINT', () => interrupt.abort());
  process.exitCode = await main(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: interrupt.signal,
  });
}
