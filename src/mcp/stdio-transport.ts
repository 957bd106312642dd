import { spawn, type ChildProcess } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How long a closing server gets after its stdin ends, then after SIGTERM, before SIGKILL. */
const CLOSE_GRACE_MS = 2000;
const POSIX = process.platform !== 'win32';

/** Process groups of the stdio servers this process started and has not yet seen die. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * SIGKILLs every stdio server process group still alive. Runs on `process.on('exit')` (a second signal's
 * `process.exit`, an uncaught error), so a worker that stops at once leaves no server running (ppid 1) behind.
 */
export function killStdioServerGroups(): void {
  for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  liveGroups.clear();
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
 * destroys the pipes. stderr is always piped (`onStderr`), never inherited.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private group?: number;
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
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        env: { ...getDefaultEnvironment(), ...this.options.env },
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

  /** Ends the server: stdin closed, then SIGTERM and SIGKILL to its whole process group; pipes destroyed. */
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
      await waitUntil(() => !groupAlive(group), CLOSE_GRACE_MS);
      if (groupAlive(group)) {
        signalGroup(group, 'SIGTERM');
        await waitUntil(() => !groupAlive(group), CLOSE_GRACE_MS);
      }
      if (groupAlive(group)) signalGroup(group, 'SIGKILL');
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

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50).unref());
}
