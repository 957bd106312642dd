import { spawn, type ChildProcess } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  findMarked,
  findMarkedSync,
  ownMarks,
  signalProcesses,
  STDIO_OWNER_ENV,
  stdioOwnerMark,
} from './stdio-reaper.js';

/** How long a closing server gets after its stdin ends, then after SIGTERM, before SIGKILL. */
const CLOSE_GRACE_MS = 2000;
const POSIX = process.platform !== 'win32';

/** Process groups of the stdio servers this process started and has not yet seen die. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * SIGKILLs every stdio server process group still alive, and every process carrying one of this process's server
 * marks (a grandchild that left its group). Runs on `process.on('exit')` (a second signal's `process.exit`, an
 * uncaught error), so a worker that stops at once leaves no server running (ppid 1) behind. A worker killed outright
 * runs nothing: its reaper ends them (see stdio-reaper.ts).
 */
export function killStdioServerGroups(): void {
  for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  liveGroups.clear();
  signalProcesses(findMarkedSync(ownMarks()), 'SIGKILL');
}

/** What {@link GroupStdioTransport} starts. */
export interface GroupStdioOptions {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
  maxBufferSize: number;
  /** The server's stderr, decoded as UTF-8 (never inherited: whatever a server prints may hold secrets). */
  onStderr?: (chunk: string) => void;
}

/**
 * The MCP stdio client transport, with each server in its own process group (`detached: true`). The SDK's
 * transport signals only the process it spawned: a server started through a wrapper (`sh -c "node server.js"`,
 * `npx`) left the real server running after close, and kept the worker from exiting. This one, on close (and when
 * the spawned process exits by itself), ends stdin, then signals the whole group (SIGTERM, then SIGKILL), and
 * destroys the pipes. stderr is always piped (`onStderr`), never inherited. Every process of the server carries its
 * mark ({@link STDIO_OWNER_ENV}), so one that left the group (a daemonizing grandchild) is ended too, and the worker's
 * reaper ends them all if the worker is killed. Close takes at most twice `CLOSE_GRACE_MS`, and a little more.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private group?: number;
  private mark?: string;
  private readonly readBuffer: ReadBuffer;
  private closed = false;

  constructor(private readonly options: GroupStdioOptions) {
    this.readBuffer = new ReadBuffer({ maxBufferSize: options.maxBufferSize });
  }

  /** The spawned process's id (also its process group's), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('GroupStdioTransport already started');
    installExitHook();
    const mark = POSIX ? stdioOwnerMark() : undefined;
    this.mark = mark;
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        env: { ...getDefaultEnvironment(), ...this.options.env, ...(mark ? { [STDIO_OWNER_ENV]: mark } : {}) },
        cwd: this.options.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: POSIX,
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        if (POSIX && child.pid) {
          this.group = child.pid;
          liveGroups.add(child.pid);
        }
        resolve();
      });
      child.once('close', () => {
        // The spawned process is gone; what it started may not be (a wrapper's child): end the group too.
        void this.close();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      // A stream without an 'error' listener throws the error at the process: never let a server's pipe do that.
      child.stderr?.on('error', () => {});
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => this.options.onStderr?.(chunk));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.readBuffer.append(chunk);
          for (let message = this.readBuffer.readMessage(); message; message = this.readBuffer.readMessage()) {
            this.onmessage?.(message);
          }
        } catch (error) {
          this.onerror?.(error as Error);
          void this.close();
        }
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || this.closed) return reject(new Error('Not connected'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /**
   * Ends the server: stdin closed, then SIGTERM and SIGKILL to its whole process group and every process with its
   * mark; pipes destroyed. Bounded: a server that ignores both is SIGKILLed after twice `CLOSE_GRACE_MS`.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const child = this.child;
    const group = this.group;
    try {
      child?.stdin?.end();
    } catch {
      // Already closed.
    }
    if (child && group !== undefined) {
      const mark = this.mark;
      const marked = (value: string) => value === mark;
      await waitUntil(() => !groupAlive(group), CLOSE_GRACE_MS);
      // Processes that left the group are found by their mark, once per phase (a scan reads every process's).
      const strays = await findMarked(marked);
      if (groupAlive(group) || strays.length > 0) {
        signalGroup(group, 'SIGTERM');
        signalProcesses(strays, 'SIGTERM');
        await waitUntil(() => !groupAlive(group) && !strays.some(processAlive), CLOSE_GRACE_MS);
        if (groupAlive(group)) signalGroup(group, 'SIGKILL');
        signalProcesses(await findMarked(marked), 'SIGKILL');
      }
      liveGroups.delete(group);
    } else if (child && child.exitCode === null) {
      child.kill('SIGKILL');
    }
    // The pipes are handles of this process: left open, they keep a stopping worker alive.
    child?.stdin?.destroy();
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    this.readBuffer.clear();
    this.onclose?.();
  }
}

function installExitHook(): void {
  if (exitHookInstalled || !POSIX) return;
  exitHookInstalled = true;
  process.on('exit', killStdioServerGroups);
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // The group is gone.
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Polls until `done` or the timeout. The timers keep the process running: a stopping worker whose loop holds nothing
 * else (the server's own process gone, its group not) must still finish closing, or the `await` never returns.
 */
async function waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}
