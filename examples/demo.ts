// `npm run demo`: the whole durable flow in one command, no API key needed. It starts (or uses) a Temporal server,
// runs `worker.ts` as a child process, starts a run of the example `assistant` that looks up the weather and then
// wants to send an email, kills the worker with SIGKILL while the run waits for approval, starts a new worker,
// shows that the run is still waiting, approves the email as a person would, and prints the answer. Then a short run
// of the example `concierge`, whose tools are routed (it searches its pool, then calls what it found), a three-turn
// conversation with the assistant (follow-ups that refer to earlier answers, the worker SIGKILLed between turns, an
// approval in the second turn), and a summary.
//
// Options: --interactive (-i) asks you y/n for the approval; --verbose (-v) shows the workers' own logs.
// Environment: Temporal's own configuration (TEMPORAL_ADDRESS, or a temporal.toml profile with an address, plus
// TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_*, TEMPORAL_PROFILE); without an address, an embedded dev
// server with its Web UI (data in .temporal/demo.sqlite). TEMPORAL_TASK_QUEUE; OPENAI_API_KEY / OPENAI_BASE_URL /
// AGENT_MODEL (else the offline stand-in model), AGENT_EMBEDDING_MODEL (the concierge's tool search; else
// openai/text-embedding-3-small with a key, or the offline hashed bag of words).
import { type ChildProcess, spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AgentClient } from '../src/client/agent-client.js';
import type { AgentRun, AgentRunResult } from '../src/client/agent-run.js';
import { createEventFormatter, formatDecision, formatValue } from '../src/cli/format.js';
import { askApproval } from '../src/cli/inline-actions.js';
import { printedParts, RunPrinter, type WatchPosition } from '../src/cli/live-text.js';
import { createPrompter } from '../src/cli/prompter.js';
import { createStyle, shouldColor } from '../src/cli/style.js';
import { shellQuote } from '../src/cli/terminal-text.js';
import { describeOrigin } from '../src/connection/describe-connection.js';
import { resolveConnection } from '../src/connection/resolve-connection.js';
import { DEFAULT_TASK_QUEUE, type RunEvent } from '../src/protocol/index.js';
import { startDevServer } from '../src/worker/dev-server.js';
import { RunRequestRejectedError } from '../src/client/errors/run-request-rejected-error.js';
import { RefusalCode } from '../src/protocol/refusal-codes.js';
import { startInboxUi, type InboxUi } from '../src/ui/ui-server.js';
import { CONCIERGE_TOOLS, exampleEmbeddingModel, exampleModel } from './agents.js';

/**
 * What the run is asked. The offline stand-in model matches tools by the words of the request: "weather" picks
 * `get_weather` (city from "in Paris"), then "email" picks `send_email` (subject and body from the quoted text).
 */
const PROMPT = 'Check the current weather in Paris and email "Paris weather update" to team@example.com.';
/**
 * What the routed run is asked. The concierge's model sees only `searchTools` and `callTool`; the offline model
 * searches with these words, and the offline embedder (a bag of words) finds `get_local_time` by "time".
 */
const ROUTED_PROMPT = 'What time is it in Tokyo?';
/**
 * The conversation's messages: each follow-up refers to an earlier answer. The offline model reads the earlier turns
 * from its prompt: "that forecast" mails turn 1's weather (send_email waits for approval), and "which city" is
 * answered from the transcript.
 */
const CONVERSATION = [
  "What's the weather in Paris?",
  'Email that forecast to ana@example.com',
  'Which city was that forecast for?',
] as const;
const APPROVER = 'demo-user';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKER_SCRIPT = join(ROOT, 'worker.ts');
const DB_FILE = join(ROOT, '.temporal', 'demo.sqlite');
/** The whole demo normally takes seconds; a real model gets more time, but a hang still ends with a message. */
const DEMO_TIMEOUT_MS = 4 * 60_000;
const WORKER_READY_TIMEOUT_MS = 60_000;
const WORKER_STOP_GRACE_MS = 5_000;
/** Ctrl-C (or SIGTERM): clean up and exit 130, as a shell expects. */
const INTERRUPTED = new Error('Interrupted.');

const USAGE = `Usage: npm run demo [-- [--interactive] [--verbose]]
  -i, --interactive  ask y/n for the approval instead of approving as ${APPROVER}
  -v, --verbose      show the workers' own logs`;

/** The command-line flags; an unknown flag prints the usage and exits 2. */
function parseFlags(): { interactive: boolean; verbose: boolean; help: boolean } {
  try {
    return parseArgs({
      options: {
        interactive: { type: 'boolean', short: 'i', default: false },
        verbose: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}\n`);
    process.exit(2);
  }
}

const flags = parseFlags();
const style = createStyle(shouldColor(process.stdout, process.env));
const say = (text = '') => process.stdout.write(`${text}\n`);
const write = (text: string) => (text === '' ? undefined : process.stdout.write(text));
const section = (title: string) => say(`\n${style.bold(`── ${title}`)}`);

/** Runs cleanup steps in reverse order of registration, each at most once, whatever happened before. */
class Cleanup {
  private readonly steps: Array<() => Promise<void>> = [];
  add(step: () => Promise<void>): void {
    this.steps.push(step);
  }
  async run(): Promise<void> {
    while (this.steps.length > 0) {
      await this.steps.pop()!().catch((error: unknown) => say(style.yellow(`cleanup: ${String(error)}`)));
    }
  }
}

/**
 * Fails the demo from anywhere (a worker that dies on its own, Ctrl-C, the overall timeout): waits raced with
 * `guard` end at once, and the event stream stops through `signal`.
 */
class Watchdog {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  private readonly failed = new Promise<never>((_, reject) => {
    this.signal.addEventListener('abort', () => reject(this.signal.reason as Error), { once: true });
  });
  constructor() {
    this.failed.catch(() => undefined);
  }
  fail(error: Error): void {
    if (!this.signal.aborted) this.controller.abort(error);
  }
  async guard<T>(promise: Promise<T>): Promise<T> {
    return await Promise.race([promise, this.failed]);
  }
  throwIfFailed(): void {
    this.signal.throwIfAborted();
  }
}

/** A `worker.ts` child process. */
interface WorkerProcess {
  readonly number: number;
  readonly child: ChildProcess;
  /** SIGKILL, as a crash would: no shutdown, no cleanup. */
  crash(): Promise<void>;
  /** SIGTERM (graceful shutdown), then SIGKILL after a grace period. */
  stop(): Promise<void>;
}

interface Connection {
  address: string;
  namespace: string;
  taskQueue: string;
  embedded: boolean;
  /** The embedded dev server's Web UI. */
  uiUrl?: string;
}

async function main(): Promise<number> {
  if (flags.help) {
    say(USAGE);
    return 0;
  }
  const startedAt = performance.now();
  const cleanup = new Cleanup();
  const watchdog = new Watchdog();
  const timer = setTimeout(
    () => watchdog.fail(new Error(`The demo did not finish within ${DEMO_TIMEOUT_MS / 1000} s.`)),
    DEMO_TIMEOUT_MS,
  );
  const interrupt = () => watchdog.fail(INTERRUPTED);
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    await demo(cleanup, watchdog, startedAt);
    return 0;
  } catch (error) {
    if (error === INTERRUPTED) {
      say(`\n${style.yellow('Interrupted: cleaning up.')}`);
      return 130;
    }
    const message = error instanceof Error ? error.message : String(error);
    say(`\n${style.red(style.bold('Demo failed:'))} ${message}`);
    // A failed run's reason is at the bottom of Temporal's failure chain ("Activity task failed" → the real error).
    let root: unknown = error;
    while (root instanceof Error && root.cause instanceof Error) root = root.cause;
    if (root instanceof Error && root !== error) say(`  cause: ${root.message}`);
    return 1;
  } finally {
    clearTimeout(timer);
    await cleanup.run();
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

async function demo(cleanup: Cleanup, watchdog: Watchdog, startedAt: number): Promise<void> {
  const model = exampleModel();
  const offline = model.startsWith('offline/');
  say(style.bold('durable-agent demo: an agent run that survives a worker crash while it waits for a person'));
  say(
    offline
      ? `Model: ${model} — the offline stand-in (rule-based, not an AI). Set OPENAI_API_KEY for a real model.`
      : `Model: ${model}`,
  );

  section('Temporal');
  const connection = await watchdog.guard(temporalServer(cleanup));
  // An external server: Temporal's environment configuration, as the worker reads it. The embedded one: only it.
  const client = await AgentClient.connect({
    taskQueue: connection.taskQueue,
    ...(connection.embedded ? { address: connection.address, namespace: connection.namespace, env: {} } : {}),
  });
  cleanup.add(() => client.temporal.connection.close());

  section('Worker');
  const firstWorker = await startWorker(1, connection, client, cleanup, watchdog);
  const inbox = await startInbox(client, connection.taskQueue, cleanup);

  section('Run');
  const run = await client.start('assistant', PROMPT, {
    userId: APPROVER,
    // Runs left behind by an interrupted demo end on their own instead of waiting for approval forever.
    workflow: { workflowExecutionTimeout: '10 minutes' },
  });
  say(`Started run ${style.bold(run.id)} of agent 'assistant':`);
  say(`  "${PROMPT}"`);
  if (connection.uiUrl) {
    const link = `${connection.uiUrl}/namespaces/${encodeURIComponent(connection.namespace)}/workflows/${encodeURIComponent(run.id)}`;
    say(`Follow it in the Temporal Web UI: ${style.cyan(link)}`);
  }
  say(`Or in the inbox page, where people decide: ${style.cyan(inbox.url)}`);
  say(style.dim('Events as the run records them, and the answer as the model writes it:'));

  const printer = new RunPrinter({ format: createEventFormatter({ style }), style, linePrefix: '  ' });
  // Where the watch is: after the approval (and the crash) it goes on from there, nothing repeated.
  const position: WatchPosition = { lastSeq: 0, lastOffset: -1 };
  let crashed = false;
  let worker = firstWorker;
  // After the approval, the worker is killed once more while the model writes the answer. Offline only: the stand-in
  // writes in timed pieces, so the kill lands mid-answer; a real model may be done before the kill arrives, and
  // the retried call would be asked (and billed) again.
  const killMidAnswerToo = offline;
  let killedMidAnswer = false;
  const toolsCalled = new Set<string>();
  for (;;) {
    let pending: Extract<RunEvent, { type: 'approval-requested' }> | undefined;
    for await (const { text, event } of printedParts(run.parts({ signal: watchdog.signal }), printer, position)) {
      write(text);
      if (killMidAnswerToo && crashed && !killedMidAnswer && !event && text.includes('model says')) {
        killedMidAnswer = true;
        write(printer.close());
        worker = await killMidAnswer(worker, connection, client, cleanup, watchdog);
      }
      if (event?.type === 'tool-call') toolsCalled.add(event.toolName);
      if (event?.type === 'approval-requested') {
        pending = event;
        break;
      }
    }
    write(printer.close());
    watchdog.throwIfFailed();
    if (!pending) break;

    if (!crashed) {
      crashed = true;
      worker = await crashAndReplace(worker, run, pending, connection, client, cleanup, watchdog);
    }
    await decide(run, pending, watchdog);
    say(style.dim('Events after the decision:'));
  }

  const result = await watchdog.guard(run.result());
  if (!toolsCalled.has('get_weather') || !crashed) {
    const missing = !toolsCalled.has('get_weather') ? 'get_weather' : 'send_email (the tool that needs approval)';
    if (offline) {
      throw new Error(
        `The offline model did not call ${missing} for the demo prompt, so the durable flow could not be shown. ` +
          'This is a bug in the demo or the offline model: please report it.',
      );
    }
    say(
      style.yellow(
        `\nThe model did not call ${missing}, so ${crashed ? 'part of the flow' : 'the approval and the worker crash'} ` +
          'could not be shown. Real models decide for themselves; run again, or try the offline model ' +
          '(unset OPENAI_API_KEY and AGENT_MODEL).',
      ),
    );
  }
  section('Final answer');
  say(result.text || style.dim('(no text)'));
  if (killedMidAnswer) await sayHowTheAnswerSurvived(run, watchdog);
  const routed = await routedRun(client, offline, watchdog);
  const chat = await conversationDemo(client, worker, connection, cleanup, watchdog, offline);
  summarize(result, crashed, killedMidAnswer, routed, chat, connection, run.id, startedAt);
}

/**
 * The inbox page (`npx durable-agent ui`) for the demo's user while the demo runs: what waits for people across runs,
 * each run live, a chat box with the assistant. The link signs a browser in.
 */
async function startInbox(client: AgentClient, taskQueue: string, cleanup: Cleanup): Promise<InboxUi> {
  const inbox = await startInboxUi({
    client,
    user: APPROVER,
    agent: 'assistant',
    taskQueue,
    onError: (error) => say(style.yellow(`inbox page: ${error instanceof Error ? error.message : String(error)}`)),
  });
  cleanup.add(() => inbox.close());
  say(
    `Inbox page (serves while the demo runs; later: npx durable-agent ui --user ${APPROVER} --task-queue ${shellQuote(taskQueue)}): ${style.cyan(inbox.url)}`,
  );
  return inbox;
}

/** What the conversation did, for the summary. */
interface ConversationDemo {
  id: string;
  /** Per turn: the tools called and the approvals decided. */
  turns: Array<{ toolCalls: string[]; approvals: number }>;
  /** The worker SIGKILLed between turns 1 and 2. */
  killed: number;
}

/**
 * Three turns of a conversation with the assistant: one workflow per conversation, each message a turn (a run) that
 * sees the transcript so far. Between turns 1 and 2 the worker is SIGKILLed (the idle conversation lives in
 * Temporal); turn 2 refers to turn 1's answer and needs an approval; turn 3 is answered from the transcript.
 */
async function conversationDemo(
  client: AgentClient,
  worker: WorkerProcess,
  connection: Connection,
  cleanup: Cleanup,
  watchdog: Watchdog,
  offline: boolean,
): Promise<ConversationDemo> {
  section('Conversation');
  const id = `demo-chat-${Date.now().toString(36)}-${process.pid}`;
  const conversation = client.conversation(id, {
    agent: 'assistant',
    userId: APPROVER,
    // A conversation left behind by an interrupted demo ends on its own.
    workflow: { workflowExecutionTimeout: '10 minutes' },
  });
  say(
    `A conversation is one workflow that takes follow-ups: each message is a turn (a run) whose model sees the ` +
      `transcript so far. Conversation ${style.bold(id)} with agent 'assistant':`,
  );
  const demo: ConversationDemo = { id, turns: [], killed: 0 };
  const texts: string[] = [];
  for (const [index, message] of CONVERSATION.entries()) {
    if (index === 1) {
      demo.killed = worker.number;
      worker = await killBetweenTurns(worker, client, id, connection, cleanup, watchdog);
    }
    const turn = await watchdog.guard(conversation.send(message));
    say(`\n${style.bold(`Turn ${turn.turn}`)}: "${message}"`);
    await watchdog.guard(turn.started({ signal: watchdog.signal }));
    const watched = await watchTurn(turn, watchdog);
    demo.turns.push(watched);
    const result = await watchdog.guard(turn.result());
    texts.push(result.text);
    say(`  ${style.dim(`turn ${turn.turn} answered (${result.stopReason}, ${result.finishReason})`)}`);
  }
  await watchdog.guard(conversation.end());

  const [first, second] = demo.turns;
  const missing = [
    ...(first?.toolCalls.includes('get_weather') ? [] : ['get_weather in turn 1']),
    ...(second?.approvals ? [] : ['send_email (the tool that needs approval) in turn 2']),
    ...(texts[2]?.includes('Paris') ? [] : ['"Paris" in the answer of turn 3']),
  ];
  if (missing.length > 0) {
    if (offline) {
      throw new Error(
        `The offline model did not give ${missing.join(', ')} in the conversation. This is a bug in the demo or ` +
          'the offline model: please report it.',
      );
    }
    say(
      style.yellow(
        `\nThe model did not give ${missing.join(', ')}, so part of the conversation could not be shown. Real ` +
          'models decide for themselves; run again, or try the offline model (unset OPENAI_API_KEY and AGENT_MODEL).',
      ),
    );
  }
  return demo;
}

/** Streams one turn as the run above is streamed, deciding its approvals as the demo does. */
async function watchTurn(turn: AgentRun, watchdog: Watchdog): Promise<{ toolCalls: string[]; approvals: number }> {
  const printer = new RunPrinter({ format: createEventFormatter({ style }), style, linePrefix: '  ' });
  const position: WatchPosition = { lastSeq: 0, lastOffset: -1 };
  const toolCalls: string[] = [];
  let approvals = 0;
  for (;;) {
    let pending: Extract<RunEvent, { type: 'approval-requested' }> | undefined;
    for await (const { text, event } of printedParts(turn.parts({ signal: watchdog.signal }), printer, position)) {
      write(text);
      if (event?.type === 'tool-call') toolCalls.push(event.toolName);
      if (event?.type === 'approval-requested') {
        pending = event;
        break;
      }
    }
    write(printer.close());
    watchdog.throwIfFailed();
    if (!pending) return { toolCalls, approvals };
    await decide(turn, pending, watchdog, false);
    approvals++;
  }
}

/** SIGKILL while the conversation is idle between turns: it waits in Temporal for the next message, no worker needed. */
async function killBetweenTurns(
  worker: WorkerProcess,
  client: AgentClient,
  conversationId: string,
  connection: Connection,
  cleanup: Cleanup,
  watchdog: Watchdog,
): Promise<WorkerProcess> {
  await worker.crash();
  say(
    '\n' +
      style.red(style.bold(`Killed worker ${worker.number} (pid ${worker.child.pid}) with SIGKILL`)) +
      ' between turns 1 and 2.',
  );
  const description = await watchdog.guard(client.temporal.workflow.getHandle(conversationId).describe());
  say(
    `No worker is running now, and Temporal still has the conversation: ${style.yellow(description.status.name)}, ` +
      `${description.historyLength} events in its history, turn 1's messages among them.`,
  );
  return await startWorker(worker.number + 1, connection, client, cleanup, watchdog);
}

/** What the routed run did, for the summary. */
interface RoutedRun {
  /** The tools the model called, `callTool`'s as `callTool → <target>`. */
  calls: string[];
  /** Activities the run's history scheduled, by type (`embedBatch`, `rankTools`, `executeTool`, ...). */
  activities: Map<string, number>;
}

/**
 * A short run of the concierge, whose tools are routed: the model sees `searchTools` and `callTool`, searches
 * its pool, and calls the tool it found through `callTool`. Afterwards the run's history shows what the search cost.
 */
async function routedRun(client: AgentClient, offline: boolean, watchdog: Watchdog): Promise<RoutedRun> {
  section('Tool routing');
  const embedding = exampleEmbeddingModel();
  say(
    `Tool routing: the 'concierge' agent has ${CONCIERGE_TOOLS.length} tools, but its model sees only searchTools ` +
      'and callTool. It searches the pool with words that describe what it needs, then calls the tool it found ' +
      'through callTool.',
  );
  say(
    embedding === 'offline/hashed-bow'
      ? `Tool search: ${embedding} — an offline hashed bag of words (it matches words, not meanings). ` +
          'Set OPENAI_API_KEY for a real embedding model.'
      : `Tool search: ${embedding}`,
  );
  const run = await client.start('concierge', ROUTED_PROMPT, {
    userId: APPROVER,
    workflow: { workflowExecutionTimeout: '10 minutes' },
  });
  say(`Started run ${style.bold(run.id)} of agent 'concierge':`);
  say(`  "${ROUTED_PROMPT}"`);
  say(style.dim('Events as the run records them, and the answer as the model writes it:'));
  const printer = new RunPrinter({ format: createEventFormatter({ style }), style, linePrefix: '  ' });
  const calls: string[] = [];
  const position: WatchPosition = { lastSeq: 0, lastOffset: -1 };
  for await (const { text, event } of printedParts(run.parts({ signal: watchdog.signal }), printer, position)) {
    write(text);
    if (!event) continue;
    if (event.type === 'tool-call') calls.push(routedCallName(event.toolName, event.args));
    if (event.type === 'approval-requested') {
      // A real model may reach send_email through callTool: it waits for a person like a direct call. This part of
      // the demo sends nothing, so the person says no (the model reads the refusal and answers).
      const record = await run.deny(event.toolCallId, {
        approver: APPROVER,
        reason: 'The routed part of the demo sends nothing.',
      });
      if (record) say(`  ${formatDecision(record, style)}`);
    }
  }
  write(printer.close());
  watchdog.throwIfFailed();
  await watchdog.guard(run.result());

  const { counts: activities, bytes } = await activityHistory(run);
  const searched = calls.includes('searchTools');
  const called = calls.some((call) => call.startsWith('callTool'));
  if (searched && called) {
    say(
      `The search ran as activities: embedBatch ×${activities.get('embedBatch') ?? 0} (the tools' texts into the ` +
        `worker's cache) and rankTools ×${activities.get('rankTools') ?? 0} (the query, then the ranking).`,
    );
    say(
      `The run's history records only counts (${bytes.get('embedBatch') ?? 0} bytes) and the ranking ` +
        `(${bytes.get('rankTools') ?? 0} bytes), never the vectors.`,
    );
  } else if (offline) {
    throw new Error(
      `The offline model did not ${searched ? 'call the tool it found through callTool' : 'call searchTools'} for ` +
        `"${ROUTED_PROMPT}". This is a bug in the demo or the offline model: please report it.`,
    );
  } else {
    say(
      style.yellow(
        `\nThe model did not ${searched ? 'call a tool through callTool' : 'search for a tool'}, so tool routing ` +
          'could not be shown in full. Real models decide for themselves; run again, or try the offline model ' +
          '(unset OPENAI_API_KEY and AGENT_MODEL).',
      ),
    );
  }
  return { calls, activities };
}

/** `callTool → get_local_time` for a call through `callTool`, else the tool's own name. */
function routedCallName(toolName: string, args: unknown): string {
  const target = (args as { name?: unknown } | null)?.name;
  return toolName === 'callTool' && typeof target === 'string' ? `callTool → ${target}` : toolName;
}

/** A run's activities as its history records them: how many of each type, and the bytes of their results. */
async function activityHistory(run: AgentRun): Promise<{ counts: Map<string, number>; bytes: Map<string, number> }> {
  const counts = new Map<string, number>();
  const bytes = new Map<string, number>();
  const typeOf = new Map<string, string>();
  const { events } = await run.handle.fetchHistory();
  for (const event of events ?? []) {
    const type = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (type && event.eventId != null) {
      counts.set(type, (counts.get(type) ?? 0) + 1);
      typeOf.set(String(event.eventId), type);
    }
    const completed = event.activityTaskCompletedEventAttributes;
    const completedType = typeOf.get(String(completed?.scheduledEventId));
    if (completed && completedType) {
      const size = (completed.result?.payloads ?? []).reduce((sum, payload) => sum + (payload.data?.length ?? 0), 0);
      bytes.set(completedType, (bytes.get(completedType) ?? 0) + size);
    }
  }
  return { counts, bytes };
}

/**
 * Uses the Temporal server that Temporal's environment configuration names (TEMPORAL_ADDRESS or a temporal.toml
 * profile with an address), or starts an embedded dev server with its Web UI (stopped at the end, data kept under
 * .temporal/).
 */
async function temporalServer(cleanup: Cleanup): Promise<Connection> {
  const settings = resolveConnection();
  const taskQueue = process.env.TEMPORAL_TASK_QUEUE || DEFAULT_TASK_QUEUE;
  if (settings.sources.address !== 'default') {
    say(`Using the Temporal server at ${settings.address}, namespace '${settings.namespace}'.`);
    say(style.dim(`Settings: ${describeOrigin(settings)}.`));
    return { address: settings.address, namespace: settings.namespace, taskQueue, embedded: false };
  }
  say('No Temporal address is configured (TEMPORAL_ADDRESS, temporal.toml): starting an embedded dev server…');
  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  // The UI is the one the Temporal CLI embeds: it needs no network, so the demo always offers it.
  const server = await startDevServer({ dbFilename: DB_FILE, namespace, uiPort: 0 });
  cleanup.add(async () => {
    await server.stop();
    say(style.dim('Stopped the embedded Temporal dev server.'));
  });
  say(`Temporal dev server at ${server.address} (state in ${DB_FILE.slice(ROOT.length)}).`);
  if (server.uiUrl) say(`Temporal Web UI: ${server.uiUrl}`);
  return {
    address: server.address,
    namespace,
    taskQueue,
    embedded: true,
    ...(server.uiUrl ? { uiUrl: server.uiUrl } : {}),
  };
}

/**
 * The environment of a worker child process. For the embedded server: its address only, every other Temporal
 * connection setting of the parent left out (an API key or TLS meant for another server would break the
 * connection). For an external server: the parent's whole configuration, as the client used it.
 */
function workerEnv(connection: Connection): NodeJS.ProcessEnv {
  if (!connection.embedded) return { ...process.env, TEMPORAL_TASK_QUEUE: connection.taskQueue };
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('TEMPORAL_') || name === 'TEMPORAL_CLI_PATH') env[name] = value;
  }
  return {
    ...env,
    TEMPORAL_ADDRESS: connection.address,
    TEMPORAL_NAMESPACE: connection.namespace,
    TEMPORAL_TASK_QUEUE: connection.taskQueue,
    // A temporal.toml default profile with TLS settings must not turn TLS on against the plaintext dev server.
    TEMPORAL_TLS: 'false',
  };
}

/** Starts `worker.ts` in a child process and resolves once it polls the task queue. */
async function startWorker(
  number: number,
  connection: Connection,
  client: AgentClient,
  cleanup: Cleanup,
  watchdog: Watchdog,
): Promise<WorkerProcess> {
  say(`Starting worker ${number} (a child process running worker.ts)…`);
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER_SCRIPT], {
    cwd: ROOT,
    env: workerEnv(connection),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 30) output.shift();
      if (flags.verbose) say(style.dim(`  [worker ${number}] ${line}`));
    }
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // If the demo itself dies, do not leave a worker behind.
  const killOnExit = () => child.kill('SIGKILL');
  process.on('exit', killOnExit);
  let expectedExit = false;
  child.once('exit', (code, signal) => {
    process.off('exit', killOnExit);
    if (!expectedExit) {
      watchdog.fail(
        new Error(
          `Worker ${number} exited unexpectedly (${signal ?? `code ${code}`}). Its last output:\n` +
            (output.join('\n') || '(none)'),
        ),
      );
    }
  });
  const end = async (signal: NodeJS.Signals) => {
    expectedExit = true;
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(signal);
    await exited;
  };
  const worker: WorkerProcess = {
    number,
    child,
    crash: () => end('SIGKILL'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const stopping = end('SIGTERM');
      // Unreferenced: a worker that stops at once must not keep the demo alive for the rest of the grace period.
      const graceOver = delay(WORKER_STOP_GRACE_MS, 'timeout' as const, { ref: false });
      if ((await Promise.race([stopping, graceOver])) === 'timeout') await end('SIGKILL');
    },
  };
  cleanup.add(() => worker.stop());

  const startedAt = performance.now();
  await watchdog.guard(waitUntilPolling(child, connection, client));
  say(
    `Worker ${number} (pid ${child.pid}) is polling task queue '${connection.taskQueue}' ` +
      style.dim(`(ready in ${((performance.now() - startedAt) / 1000).toFixed(1)} s)`),
  );
  return worker;
}

/** Waits until the server lists the child (identity `pid@host`, Temporal's default) as a workflow poller. */
async function waitUntilPolling(child: ChildProcess, connection: Connection, client: AgentClient): Promise<void> {
  const identity = `${child.pid}@${hostname()}`;
  const deadline = Date.now() + WORKER_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const { pollers } = await client.temporal.workflowService.describeTaskQueue({
      namespace: connection.namespace,
      taskQueue: { name: connection.taskQueue },
      taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
    if (pollers.some((poller) => poller.identity === identity)) return;
    await delay(100);
  }
  throw new Error(`Worker (pid ${child.pid}) did not start polling within ${WORKER_READY_TIMEOUT_MS / 1000} s.`);
}

/** The heart of the demo: kill the worker while the run waits, start another, and show nothing was lost. */
async function crashAndReplace(
  worker: WorkerProcess,
  run: AgentRun,
  pending: Extract<RunEvent, { type: 'approval-requested' }>,
  connection: Connection,
  client: AgentClient,
  cleanup: Cleanup,
  watchdog: Watchdog,
): Promise<WorkerProcess> {
  section('Crash');
  await worker.crash();
  say(
    style.red(style.bold(`Killed worker ${worker.number} (pid ${worker.child.pid}) with SIGKILL`)) +
      ` while the run waits for approval of ${pending.toolName}.`,
  );
  const description = await watchdog.guard(run.handle.describe());
  say(
    `No worker is running now, and Temporal still has the run: ${style.yellow(description.status.name)}, ` +
      `${description.historyLength} events in its history. The run lives there, not in a worker.`,
  );
  const replacement = await startWorker(worker.number + 1, connection, client, cleanup, watchdog);
  say(
    style.dim(
      'Asking the run for its state. The first request after a crash can take a few seconds: Temporal first offers it ' +
        "to the dead worker's sticky queue, then hands the run to the new worker.",
    ),
  );
  const askedAt = performance.now();
  const state = await watchdog.guard(run.state());
  const waiting = state.pendingApprovals.find((approval) => approval.toolCallId === pending.toolCallId);
  if (!waiting) {
    throw new Error(
      `After the restart the run is '${state.status}' with no pending approval for ${pending.toolCallId}: ` +
        'the approval wait did not survive the crash.',
    );
  }
  say(
    `Worker ${replacement.number} answered in ${((performance.now() - askedAt) / 1000).toFixed(1)} s: the run is ` +
      `${style.yellow(state.status)}, ${plural(state.step, 'step')} done, ` +
      `${plural(state.pendingApprovals.length, 'pending approval')}:`,
  );
  say(
    `  ${style.cyan(waiting.toolName)} ${formatValue(waiting.args)} ${style.dim(`(requested ${waiting.requestedAt})`)}`,
  );
  return replacement;
}

/**
 * The second crash: SIGKILL while the model writes the answer. The watch goes on reading the run's stream (the
 * server holds it, no worker needed); the model call is retried on the next worker, whose text picks up where the
 * screen is.
 */
async function killMidAnswer(
  worker: WorkerProcess,
  connection: Connection,
  client: AgentClient,
  cleanup: Cleanup,
  watchdog: Watchdog,
): Promise<WorkerProcess> {
  await worker.crash();
  say(
    style.red(style.bold(`  Killed worker ${worker.number} (pid ${worker.child.pid}) with SIGKILL`)) +
      ' while the model writes the answer.',
  );
  const replacement = await startWorker(worker.number + 1, connection, client, cleanup, watchdog);
  say(
    style.dim(
      `  The model call is retried on worker ${replacement.number} once its heartbeat is missed; the answer goes on ` +
        'where the screen is, with no word twice:',
    ),
  );
  return replacement;
}

/** What the history says about the model call the second crash cut off. */
async function sayHowTheAnswerSurvived(run: AgentRun, watchdog: Watchdog): Promise<void> {
  const history = await watchdog.guard(run.handle.fetchHistory());
  const scheduled = new Map<string, string>();
  let retried = 0;
  for (const event of history.events ?? []) {
    const attrs = event.activityTaskScheduledEventAttributes;
    if (attrs?.activityType?.name) scheduled.set(String(event.eventId), attrs.activityType.name);
    const started = event.activityTaskStartedEventAttributes;
    if (started && scheduled.get(String(started.scheduledEventId)) === 'generate' && (started.attempt ?? 1) > 1) {
      retried = Math.max(retried, started.attempt ?? 1);
    }
  }
  say(
    retried > 1
      ? style.dim(
          `The answer's model call ran again (attempt ${retried}) after the crash. History holds its text once, ` +
            "from the attempt that finished; the run's stream told watchers to drop the killed attempt's pieces " +
            '(reset-step), and the watch showed each word once.',
        )
      : style.dim('The model had finished the answer before the worker died: nothing needed to run again.'),
  );
}

/** Approves (or, interactively, maybe denies) a pending tool call as a person would. */
async function decide(
  run: AgentRun,
  pending: Extract<RunEvent, { type: 'approval-requested' }>,
  watchdog: Watchdog,
  heading = true,
): Promise<void> {
  if (heading) section('Approval');
  let approved = true;
  let reason: string | undefined;
  if (flags.interactive) {
    // The same question `npx durable-agent watch` asks in a terminal. Ctrl-C aborts the watchdog's signal.
    const prompter = createPrompter(process.stdin, process.stdout, watchdog.signal);
    try {
      const answer = await askApproval(prompter, pending, style, { allowSkip: false });
      watchdog.throwIfFailed();
      if (answer === undefined) throw new Error('stdin closed before the approval question was answered.');
      approved = answer !== 'skip' && answer.approved;
      if (answer !== 'skip' && !answer.approved) reason = answer.reason;
    } finally {
      prompter.close();
    }
  } else {
    say(style.dim(`Deciding as ${APPROVER} (pass --interactive to decide yourself).`));
  }
  let record;
  try {
    record = approved
      ? await run.approve(pending.toolCallId, {
          approver: APPROVER,
          reason: 'Checked the recipient and the text: fine to send.',
        })
      : await run.deny(pending.toolCallId, {
          approver: APPROVER,
          reason: reason ?? `${APPROVER} chose not to send it.`,
        });
  } catch (error) {
    // Someone decided in the inbox page first: the run took that decision, and shows it.
    if (!RunRequestRejectedError.isInstance(error) || error.code !== RefusalCode.ApprovalAlreadyDecided) throw error;
    say(style.dim('Already decided in the inbox page.'));
  }
  if (record) say(formatDecision(record, style));
}

function summarize(
  result: AgentRunResult,
  crashed: boolean,
  killedMidAnswer: boolean,
  routed: RoutedRun,
  chat: ConversationDemo,
  connection: Connection,
  runId: string,
  startedAt: number,
): void {
  section('Summary');
  say(`Steps:      ${result.steps.length} (${result.stopReason}, ${result.finishReason})`);
  for (const step of result.steps) {
    const calls = step.toolCalls.map((call) => `${call.toolName} (${call.outcome})`).join(', ');
    say(style.dim(`  step ${step.step}: ${calls || 'answer'}`));
  }
  say(
    `Tool calls: ${result.toolCalls.length}${result.toolCalls.length ? ` — ${result.toolCalls.map((c) => c.toolName).join(', ')}` : ''}`,
  );
  if (result.approvals.length === 0) say('Approvals:  none');
  for (const [i, approval] of result.approvals.entries()) {
    say(`${i === 0 ? 'Approvals:  ' : '            '}${formatDecision(approval, style)}`);
  }
  say(`Tokens:     ${result.usage.totalTokens} (${result.usage.inputTokens} in, ${result.usage.outputTokens} out)`);
  say(
    `Workers:    ${
      killedMidAnswer
        ? '3 for the run (killed with SIGKILL while it waited for approval, then while the model wrote the answer; the run did not notice)'
        : crashed
          ? '2 (the first killed with SIGKILL mid-run; the run did not notice)'
          : '1'
    }`,
  );
  const activities = [...routed.activities].map(([type, count]) => `${type} ×${count}`).join(', ');
  say(
    `Routed run: concierge — ${routed.calls.join(', ') || 'no tool calls'}` +
      style.dim(` (activities: ${activities || 'none'})`),
  );
  const turns = chat.turns
    .map((turn, i) => `${i + 1}: ${turn.toolCalls.join(', ') || 'answer'}${turn.approvals ? ' (approved)' : ''}`)
    .join('; ');
  say(
    `Chat:       ${plural(chat.turns.length, 'turn')} — ${turns}` +
      style.dim(` (worker ${chat.killed} killed between turns 1 and 2)`),
  );
  say(`Took:       ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  if (!connection.embedded) {
    say(
      style.dim(`\nInspect the run: npx durable-agent state ${shellQuote(runId)}   (needs a worker: npm run worker)`),
    );
  }
}

/** `1 step`, `2 steps`. */
function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

process.exitCode = await main();
