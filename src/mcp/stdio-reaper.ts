// Stdio MCP servers never outlive their worker, even one killed with no chance to run code (kill -9, the OOM
// killer). Each server starts with a mark in its environment (`DURABLE_AGENT_STDIO_OWNER=<worker>:<n>`), which every
// process it starts inherits: a `sh -c` wrapper's server, a grandchild that left the server's process group or
// session. A reaper, one per worker and started with its first stdio server, holds a pipe from the worker; the
// kernel closes that pipe however the worker dies, and the reaper then ends every process carrying the worker's mark
// and exits. The reaper is a POSIX shell script (sh and cat: about 3 MB resident, where Node takes 45), so it needs no
// file of its own and works in a bundled worker too.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/** The environment variable that marks a stdio server's processes: `<worker token>:<server number>`. */
export const STDIO_OWNER_ENV = 'DURABLE_AGENT_STDIO_OWNER';
const POSIX = process.platform !== 'win32';

let workerToken: string | undefined;
let servers = 0;

/** A mark for one more stdio server of this process; the first one starts the reaper. */
export function stdioOwnerMark(): string {
  if (workerToken === undefined) {
    workerToken = randomUUID();
    startReaper(workerToken);
  }
  return `${workerToken}:${++servers}`;
}

/** Matches the marks of every stdio server this process started. */
export function ownMarks(): MarkMatch {
  const prefix = `${workerToken ?? randomUUID()}:`;
  return (mark) => mark.startsWith(prefix);
}

/** Matches the mark of one stdio server, or of all of this process's. */
export type MarkMatch = (mark: string) => boolean;

/**
 * Processes (other than this one) whose mark matches: Linux reads `/proc/<pid>/environ`, other systems ask `ps -E`.
 * Asynchronous, so a close does not hold up the worker's event loop (about 10 ms for 150 processes on Linux).
 */
export async function findMarked(matches: MarkMatch): Promise<number[]> {
  if (!POSIX) return [];
  if (process.platform !== 'linux') {
    const listing = await new Promise<string>((resolve) =>
      execFile('ps', PS_ARGS, PS_OPTIONS, (error, stdout) => resolve(error ? '' : stdout)),
    );
    return psMarked(listing, matches);
  }
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const found = await Promise.all(
    entries.map(async (entry) => {
      if (!/^\d+$/.test(entry)) return undefined;
      const environ = await readFile(`/proc/${entry}/environ`, 'latin1').catch(() => '');
      return isMarked(environ, matches) ? Number(entry) : undefined;
    }),
  );
  return found.filter((pid): pid is number => pid !== undefined && pid !== process.pid);
}

/** {@link findMarked}, blocking: for `process.on('exit')`, where nothing asynchronous runs. */
export function findMarkedSync(matches: MarkMatch): number[] {
  if (!POSIX) return [];
  if (process.platform !== 'linux') {
    try {
      return psMarked(execFileSync('ps', PS_ARGS, PS_OPTIONS), matches);
    } catch {
      return [];
    }
  }
  const found: number[] = [];
  for (const entry of tryOr(() => readdirSync('/proc'), [])) {
    if (!/^\d+$/.test(entry)) continue;
    const environ = tryOr(() => readFileSync(`/proc/${entry}/environ`, 'latin1'), '');
    if (isMarked(environ, matches) && Number(entry) !== process.pid) found.push(Number(entry));
  }
  return found;
}

/** Sends `signal` to each process and to the process group it leads, if it leads one. */
export function signalProcesses(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    for (const target of [-pid, pid]) {
      try {
        process.kill(target, signal);
      } catch {
        // Gone, or not a group leader.
      }
    }
  }
}

/** `/proc/<pid>/environ` holds a matching mark (empty for a zombie, or another user's process: never). */
function isMarked(environ: string, matches: MarkMatch): boolean {
  const key = `${STDIO_OWNER_ENV}=`;
  let start = key.length;
  if (!environ.startsWith(key)) {
    const at = environ.indexOf(`\0${key}`);
    if (at === -1) return false;
    start = at + 1 + key.length;
  }
  const end = environ.indexOf('\0', start);
  return matches(environ.slice(start, end === -1 ? undefined : end));
}

/** `-E` appends each process's environment (readable for this user's processes) to its command. */
const PS_ARGS = ['-E', '-ww', '-A', '-o', 'pid=,command='];
const PS_OPTIONS = { encoding: 'utf8' as const, maxBuffer: 64 * 1024 * 1024 };

function psMarked(listing: string, matches: MarkMatch): number[] {
  const pattern = new RegExp(`(?:^|\\s)${STDIO_OWNER_ENV}=(\\S+)`);
  const found: number[] = [];
  for (const line of listing.split('\n')) {
    const row = /^\s*(\d+)\s(.*)$/.exec(line);
    const mark = row ? pattern.exec(row[2]!)?.[1] : undefined;
    if (row && mark !== undefined && matches(mark) && Number(row[1]) !== process.pid) found.push(Number(row[1]));
  }
  return found;
}

function tryOr<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/**
 * The reaper (`sh -c REAPER_SCRIPT reaper <worker token>`). `cat` returns when the worker's end of its stdin closes;
 * then the servers get 2 s to exit on their own stdin's end, SIGTERM (to each marked process and the group it
 * leads), 2 s more, and SIGKILL. Marked processes are found in `/proc/<pid>/environ` (Linux) or with `ps -E`
 * (macOS, BSD); the `[D]` keeps a `grep` from finding itself in `ps`'s listing.
 */
const REAPER_SCRIPT = `
trap '' INT HUP
cat >/dev/null 2>&1
marked() {
  if [ -r /proc/self/environ ]; then
    grep -las -- "[D]URABLE_AGENT_STDIO_OWNER=$1:" /proc/[0-9]*/environ | sed 's|^/proc/\\([0-9]*\\)/environ$|\\1|'
  else
    ps -E -ww -A -o pid=,command= 2>/dev/null | grep -- " [D]URABLE_AGENT_STDIO_OWNER=$1:" | sed 's/^ *\\([0-9]*\\).*/\\1/'
  fi
}
end() {
  for p in $(marked "$2"); do kill -s "$1" -- "-$p" 2>/dev/null; kill -s "$1" "$p" 2>/dev/null; done
}
wait_gone() {
  n=0
  while [ -n "$(marked "$1")" ] && [ "$n" -lt 20 ]; do
    if sleep 0.1 2>/dev/null; then n=$((n + 1)); else sleep 1; n=$((n + 10)); fi
  done
}
wait_gone "$1"
end TERM "$1"
wait_gone "$1"
end KILL "$1"
`;

/**
 * Starts this worker's reaper in its own session (a Ctrl-C to the worker's terminal does not reach it), with a pipe
 * from this process as its stdin. Neither the process nor the pipe keeps this process running. Without a shell,
 * servers still end on close and when the worker exits by itself; only a killed worker's may stay.
 */
function startReaper(token: string): void {
  if (!POSIX) return;
  const env = { ...process.env };
  delete env[STDIO_OWNER_ENV];
  try {
    const reaper = spawn('/bin/sh', ['-c', REAPER_SCRIPT, 'durable-agent-stdio-reaper', token], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      env,
    });
    reaper.on('error', () => {});
    reaper.stdin?.on('error', () => {});
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  } catch {
    // No reaper: see above.
  }
}
