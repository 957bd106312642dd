// The bench's results: their shape (bench/results/latest.json), the tables printed to stdout, and the markdown
// report (bench/results/latest.md) with the machine, server settings and load they were measured under.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { format, resolveConfig } from 'prettier';
import { resolveTemporalBinary } from '../src/worker/dev-server.js';
import type { ProfileEntry } from './cpu-profile.js';
import { RUNTIME_LABELS, type RuntimeKey } from './runtimes.js';
import { round } from './stats.js';

/** Per-step time of one runtime at one run length. */
export interface PerStepRow {
  runtime: RuntimeKey;
  label: string;
  toolSteps: number;
  modelSteps: number;
  runs: number;
  medianRunMs: number;
  p95RunMs: number;
  /** Median run time divided by model steps. */
  msPerStep: number;
  /** Median over runs of the worker's CPU time (user + system) divided by model steps. */
  cpuMsPerStep?: number;
  /** The same for the worker's main thread (activities, payload conversion) and its workflow threads (sandbox). */
  mainCpuMsPerStep?: number;
  workflowCpuMsPerStep?: number;
  /** Median, from history: execution started → first model activity started. */
  startToFirstModelMs?: number;
  /** Median, from history: last tool finished → execution completed. */
  lastToolToEndMs?: number;
}

/** Where a durable runtime's per-step time goes (medians per model step, from history event times). */
export interface BreakdownRow {
  runtime: RuntimeKey;
  label: string;
  toolSteps: number;
  runs: number;
  workflowTasksPerStep: number;
  activitiesPerStep: number;
  msPerStep: {
    /** Workflow task scheduled → started: the server handing the task to the worker. */
    workflowTaskWait: number;
    /** Workflow task started → completed: the worker running workflow code, plus the RPCs around it. */
    workflowTaskRun: number;
    /** Activity scheduled → started. */
    activityWait: number;
    modelActivityRun: number;
    toolActivityRun: number;
    otherActivityRun: number;
    /** Client-measured time not covered by the above (start and result RPCs). */
    client: number;
    total: number;
  };
}

/** Many runs at once on one worker. */
export interface ConcurrencyRow {
  runtime: RuntimeKey;
  label: string;
  concurrentRuns: number;
  modelStepsPerRun: number;
  wallMs: number;
  stepsPerSecond: number;
  p50RunMs: number;
  p95RunMs: number;
  cpuMsPerStep?: number;
}

/** The worker's memory with this many runs waiting for approval (all in its workflow cache), over its baseline. */
export interface MemoryRow {
  runtime: RuntimeKey;
  label: string;
  waitingRuns: number;
  cacheSize: number;
  rssBytes: number;
  heapBytes: number;
  rssPerRunBytes: number;
  heapPerRunBytes: number;
}

/** Approving every waiting run, a few at a time. */
export interface ApprovalRow {
  runtime: RuntimeKey;
  label: string;
  runs: number;
  cacheSize: number | 'default';
  concurrency: number;
  /** First approval sent → last one accepted. */
  totalMs: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Runs that completed with the expected result after their approval. */
  completed: number;
}

/** What one run left in history. */
export interface HistoryRow {
  runtime: RuntimeKey;
  label: string;
  toolSteps: number;
  modelSteps: number;
  toolOutputBytes: number;
  executions: number;
  events: number;
  payloadBytes: number;
  transcriptBytes: number;
  /** payloadBytes / transcriptBytes. */
  ratio: number;
  payloadBytesByKind: Record<string, number>;
}

/** One thread's CPU profile, per model step (see bench/sections/profile.ts). */
export interface ProfileThread {
  /** `main` (activities, payload conversion, the SDK's side of workflow tasks) or a worker thread (workflows). */
  thread: string;
  /** The `.cpuprofile` file, for Chrome DevTools. */
  file: string;
  wallMs: number;
  /** Sampled time not idle, ms per model step. */
  busyMsPerStep: number;
  /** Inclusive ms per model step in Temporal's promise hook capturing stack traces (workflow threads only). */
  stackCaptureMsPerStep?: number;
  /** Top packages or source folders by self time (self and inclusive ms per model step). */
  groups: ProfileEntry[];
  /** Top functions by self time (self and inclusive ms per model step). */
  functions: ProfileEntry[];
}

/** A worker's CPU at many runs at once: costs without the profiler, then every thread's profile. */
export interface ProfileRow {
  runtime: RuntimeKey;
  label: string;
  concurrentRuns: number;
  modelStepsPerRun: number;
  /** Batches measured without the profiler; the figures below are their medians. */
  batches?: number;
  /** Without the profiler. */
  stepsPerSecond: number;
  cpuMsPerStep: number;
  mainCpuMsPerStep: number;
  workflowCpuMsPerStep: number;
  /** Promises created in the workflow threads per model step (the SDK's and the workflows'). */
  promisesPerStep: number;
  /** Of them, those workflow code made in the sandbox: Temporal's promise hook captures a stack trace for each. */
  workflowPromisesPerStep?: number;
  /** Each batch's steps/s and worker CPU ms per step, in the order run. */
  batchStepsPerSecond?: number[];
  batchCpuMsPerStep?: number[];
  /** Wall time of the profiled batch (the profiler's sampling slows it). */
  profiledWallMs: number;
  /** Where the `.cpuprofile` files are. */
  dir: string;
  threads: ProfileThread[];
}

/** Everything one `npm run bench` measured. */
export interface BenchReport {
  date: string;
  command: string;
  quick: boolean;
  config: unknown;
  machine: ReturnType<typeof machineInfo>;
  /** The dev server: its version and every flag it was started with. */
  server: { temporalCli: string; args: string[] };
  versions: Record<string, unknown>;
  /** The Temporal SDK's default workflow cache size for this machine's heap limit. */
  defaultCacheSize: number;
  temporalAiSdk: { available: boolean; reason?: string };
  /** 1-minute load average as each section began. */
  load: Array<{ section: string; loadAverage: number }>;
  perStep: PerStepRow[];
  breakdown: BreakdownRow[];
  concurrency: ConcurrencyRow[];
  memory: MemoryRow[];
  approvals: ApprovalRow[];
  history: HistoryRow[];
  /** CPU profiles of the workers at many runs at once. */
  profile: ProfileRow[];
  /** Runtimes that failed mid-bench, with the error. */
  failures?: Record<string, string>;
  durationSeconds: number;
}

/** The machine the numbers come from. */
export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model ?? 'unknown',
    cpuCount: cpus.length,
    cpuSpeedMHz: cpus[0]?.speed ?? 0,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    node: process.version,
    /** 1-minute load average when the bench started and ended: other work on the machine skews timings. */
    loadAverage: { start: round(os.loadavg()[0]!, 2), end: Number.NaN },
  };
}

/** `temporal --version` of the dev server binary. */
export function temporalCliVersion(): string {
  try {
    const result = spawnSync(resolveTemporalBinary(), ['--version'], { encoding: 'utf8', timeout: 10_000 });
    return result.stdout.trim() || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Writes the report as JSON formatted the way the repository's Prettier config wants it. */
export async function writeJson(path: string, report: object): Promise<void> {
  const options = (await resolveConfig(path)) ?? {};
  writeFileSync(path, await format(JSON.stringify(report), { ...options, parser: 'json' }));
}

/** The result tables, as printed to stdout. */
export function renderTables(report: BenchReport): string {
  const parts: string[] = [];
  const section = (title: string, ...body: string[]) => parts.push(`## ${title}`, '', ...body.flatMap((b) => [b, '']));
  section('Targets', targetLines(report).join('\n'));
  if (report.perStep.length > 0) {
    section(
      'Per-step time (scripted zero-latency model; each step one model call and one tool call, then a final text step)',
      `Median of ${runsOf(report)} runs per runtime after warm-up, runtimes interleaved run by run; a run is timed from ` +
        'start to result; ms/step = median run time ÷ model steps. "marginal" is the slope between the two run ' +
        'lengths: what one more step costs, without the fixed cost of a run. The floor is a bare workflow scheduling ' +
        'the same activities with no-op bodies on a plain worker with the same settings.',
      table(...perStepTable(report, ['inProcess', 'floor', 'durableAgent', 'temporalAiSdk'], 'floor')),
      '### With the tool as a local activity (`activity: { local: true }`), against the floor with a local tool',
      table(...perStepTable(report, ['floorLocal', 'durableAgentLocal', 'durableAgent'], 'floorLocal')),
      '### Worker CPU per step and the fixed cost of a run',
      "CPU: the worker process's CPU time (user + system, all threads) over a run ÷ model steps, median of the " +
        'runs. Fixed cost, from history event times (medians): execution started → first model activity started, ' +
        'and last tool finished → execution completed.',
      table(...cpuTable(report)),
      '### Where a step goes (from history event times, median per model step, longest run)',
      'WFT = workflow task. "wait" is the server handing a task to the worker (scheduled → started); "run" is ' +
        'started → completed. "client" is the rest of the client-measured time (start and result RPCs).',
      table(...breakdownTable(report)),
    );
  }
  if (report.concurrency.length > 0) {
    section(
      'Concurrency: runs started at once on one worker',
      'Each level: every runtime runs its batch in turn (5 tool steps per run). Steps/s = runs × model steps ÷ wall ' +
        'time of the batch; CPU = worker CPU time over the batch ÷ steps.',
      table(...concurrencyTable(report)),
    );
  }
  if (report.memory.length > 0 || report.approvals.length > 0) {
    section(
      'Runs waiting for approval: memory per waiting run',
      "A fresh worker per runtime, with a workflow cache that holds every run; after one warm-up run, the worker's " +
        'RSS and V8 heap (main thread + workflow threads, after a full GC) are measured as the waiting runs reach ' +
        'each count, and divided by it. The floor waits on an update after its first model activity.' +
        ladderCapsNote(report),
      table(...memoryTable(report)),
      '### Approving every waiting run',
      'Decisions are read first (in start order: a UI showing the request), then all runs are approved in the same ' +
        'order, a few at a time; latency is one approval sent → accepted by the run. With a cache smaller than the ' +
        `runs, each approval reaches an evicted run, which replays. The SDK's default cache here: ${report.defaultCacheSize} runs.`,
      table(...approvalTable(report)),
    );
  }
  if (report.history.length > 0) {
    section(
      'History bytes as the conversation grows (2 KB tool outputs)',
      "History payload bytes: sum of every payload `data` in the run's history events. Transcript bytes: the run's " +
        'messages as JSON, each message once. "Added per step": payload bytes per extra tool step since the ' +
        'previous row (constant when growth is linear).',
      table(...historyTable(report)),
    );
  }
  if (report.profile.length > 0) {
    const first = report.profile[0]!;
    section(
      `CPU profile of a worker at ${first.concurrentRuns} runs at once (${first.modelStepsPerRun} model steps each)`,
      "Each runtime: batches without the profiler, alternating with the other runtime (medians; each batch's " +
        'steps/s in the last column: one batch on this machine swings by tens of percent), for steps/s, worker CPU ' +
        'per step, promises created in the ' +
        'workflow threads per step, and of them those made by workflow code in the sandbox, for each of which ' +
        "Temporal's promise hook captures a stack trace), then again with V8's CPU profiler in every " +
        'thread of the worker ("stack captures": inclusive ms per step in that hook, from the profile). "main" runs activities, payload conversion and the SDK\'s side of workflow tasks; the ' +
        'worker threads run the workflow sandbox; the rest of the process (Rust core, GC threads) is not sampled. ' +
        'Self and inclusive (incl.) ms per model step; groups are packages (`node_modules`) or source folders ' +
        "(`bundle:` is workflow code as bundled). The profiler's sampling adds CPU of its own, so compare rows, not " +
        'absolute figures.',
      table(...profileCostTable(report)),
      ...report.profile.flatMap((row) =>
        row.threads
          .filter((thread) => thread.busyMsPerStep > 0)
          .flatMap((thread) => [
            `### ${row.label}, ${thread.thread}: busy ${thread.busyMsPerStep.toFixed(3)} ms/step (\`${thread.file}\`)`,
            table(...profileEntryTable('package or folder', thread.groups)),
            table(...profileEntryTable('function', thread.functions)),
          ]),
      ),
    );
  }
  if (!report.temporalAiSdk.available) {
    parts.push(`@temporalio/ai-sdk could not run here: ${report.temporalAiSdk.reason ?? 'unknown reason'}`, '');
  }
  for (const [runtime, error] of Object.entries(report.failures ?? {})) {
    parts.push(`${RUNTIME_LABELS[runtime as RuntimeKey] ?? runtime} failed during the bench: ${error}`, '');
  }
  return `${parts.join('\n')}\n`;
}

/** The full markdown report: when, where, what, then the tables. */
export function renderMarkdown(report: BenchReport): string {
  const m = report.machine;
  const versions = report.versions;
  const load = report.load.map((l) => `${l.section} ${l.loadAverage}`).join(', ');
  return [
    '# durable-agent benchmark results',
    '',
    `- Date: ${report.date}${report.quick ? ' (--quick: short smoke run, not for comparison)' : ''}`,
    `- Command: \`${report.command}\` (${report.durationSeconds} s in all)`,
    `- Machine: ${m.cpuCount} × ${m.cpuModel}${m.cpuSpeedMHz ? ` @ ${m.cpuSpeedMHz} MHz` : ''}, ${m.memoryGiB} GiB, ${m.platform}`,
    `- Load average (1 min) at start/end: ${m.loadAverage.start}/${m.loadAverage.end}; as each section began: ${load} ` +
      '(other processes on the machine share its cores and skew timings; CPU time per step is less sensitive)',
    `- Node ${m.node}; Temporal CLI dev server: ${report.server.temporalCli}`,
    `- Server flags: \`${report.server.args.join(' ')}\``,
    `- durable-agent on ${formatVersions(versions.durableAgent)}`,
    `- Temporal AI SDK integration: ${
      report.temporalAiSdk.available ? formatVersions(versions.temporalAiSdk) : 'not run (see below)'
    }`,
    '- One dev server for everything; each durable runtime has its worker in a child process of its own, with the ' +
      "same settings (durable-agent's worker defaults, the SDK's default workflow cache unless a table says " +
      'otherwise, eager activity dispatch on); the bench process only runs clients and the in-process loop.',
    '',
    renderTables(report),
    '## Where the history bytes go (longest run, by event kind)',
    '',
    table(...historyKindTable(report)),
    '',
  ].join('\n');
}

type Find = (runtime: RuntimeKey, toolSteps: number) => PerStepRow | undefined;

function finder(report: BenchReport): Find {
  return (runtime, toolSteps) => report.perStep.find((row) => row.runtime === runtime && row.toolSteps === toolSteps);
}

function lengthsOf(report: BenchReport): number[] {
  return [...new Set(report.perStep.map((row) => row.toolSteps))].sort((a, b) => a - b);
}

/** ms per step of a runtime at a length, or its marginal step (slope between the shortest and longest runs). */
function perStepOf(report: BenchReport, runtime: RuntimeKey, toolSteps: number | 'marginal'): number | undefined {
  const find = finder(report);
  if (toolSteps !== 'marginal') return find(runtime, toolSteps)?.msPerStep;
  const lengths = lengthsOf(report);
  if (lengths.length < 2) return undefined;
  const a = find(runtime, lengths[0]!);
  const b = find(runtime, lengths[lengths.length - 1]!);
  return a && b ? (b.medianRunMs - a.medianRunMs) / (b.modelSteps - a.modelSteps) : undefined;
}

function perStepTable(report: BenchReport, runtimes: RuntimeKey[], floor: RuntimeKey): [string[], unknown[][]] {
  const lengths = lengthsOf(report);
  const present = runtimes.filter((r) => report.perStep.some((row) => row.runtime === r));
  const ours = present.find((r) => r.startsWith('durableAgent'));
  const rows = [...lengths, 'marginal' as const].map((length) => {
    const name =
      length === 'marginal'
        ? `marginal (${lengths[0]}→${lengths[lengths.length - 1]} tool steps)`
        : `${length} tool steps (${length + 1} model steps)`;
    const values = present.map((r) => perStepOf(report, r, length));
    const mine = ours ? perStepOf(report, ours, length) : undefined;
    const ratios = [
      ratio(mine, perStepOf(report, floor, length)),
      ...(floor === 'floor' ? [ratio(mine, perStepOf(report, 'temporalAiSdk', length))] : []),
      ...(floor === 'floorLocal' ? [ratio(perStepOf(report, 'floor', length), perStepOf(report, floor, length))] : []),
    ];
    return [name, ...values.map((v, i) => fmt(v, present[i] === 'inProcess' ? 3 : 2)), ...ratios];
  });
  const header = [
    'run (ms/step)',
    ...present.map((r) => RUNTIME_LABELS[r]),
    `${ours ? RUNTIME_LABELS[ours] : 'ours'} ÷ ${RUNTIME_LABELS[floor]}`,
    ...(floor === 'floor' ? ['durable-agent ÷ @temporalio/ai-sdk'] : []),
    ...(floor === 'floorLocal' ? ['floor ÷ floor with a local tool'] : []),
  ];
  return [header, rows];
}

function cpuTable(report: BenchReport): [string[], unknown[][]] {
  const lengths = lengthsOf(report);
  const longest = lengths[lengths.length - 1]!;
  const find = finder(report);
  const durable = [...new Set(report.perStep.map((row) => row.runtime))].filter((r) => r !== 'inProcess');
  const rows = durable.map((runtime) => {
    const floor = runtime.endsWith('Local') ? 'floorLocal' : 'floor';
    const row = find(runtime, longest);
    return [
      RUNTIME_LABELS[runtime],
      ...lengths.map((length) => fmt(find(runtime, length)?.cpuMsPerStep, 2)),
      ratio(row?.cpuMsPerStep, find(floor, longest)?.cpuMsPerStep),
      fmt(row?.mainCpuMsPerStep, 2),
      fmt(row?.workflowCpuMsPerStep, 2),
      fmt(row?.startToFirstModelMs, 1),
      fmt(row?.lastToolToEndMs, 1),
    ];
  });
  return [
    [
      'runtime',
      ...lengths.map((length) => `CPU ms/step (${length} tool steps)`),
      `CPU ÷ its floor (${longest})`,
      `of which main thread (${longest})`,
      `of which workflow thread (${longest})`,
      'start → first model call (ms)',
      'last tool → result (ms)',
    ],
    rows,
  ];
}

function breakdownTable(report: BenchReport): [string[], unknown[][]] {
  return [
    [
      'runtime',
      'WFTs/step',
      'activities/step',
      'WFT wait',
      'WFT run',
      'activity wait',
      'model activity',
      'tool activity',
      'other activities',
      'client',
      'total ms/step',
    ],
    report.breakdown.map((row) => [
      row.label,
      row.workflowTasksPerStep,
      row.activitiesPerStep,
      row.msPerStep.workflowTaskWait,
      row.msPerStep.workflowTaskRun,
      row.msPerStep.activityWait,
      row.msPerStep.modelActivityRun,
      row.msPerStep.toolActivityRun,
      row.msPerStep.otherActivityRun,
      row.msPerStep.client,
      row.msPerStep.total,
    ]),
  ];
}

function concurrencyTable(report: BenchReport): [string[], unknown[][]] {
  return [
    ['runs at once', 'runtime', 'steps/s', 'p50 run ms', 'p95 run ms', 'wall ms', 'CPU ms/step'],
    report.concurrency.map((row) => [
      row.concurrentRuns,
      row.label,
      fmt(row.stepsPerSecond, 1),
      fmt(row.p50RunMs, 0),
      fmt(row.p95RunMs, 0),
      fmt(row.wallMs, 0),
      fmt(row.cpuMsPerStep, 2),
    ]),
  ];
}

function profileCostTable(report: BenchReport): [string[], unknown[][]] {
  const floor = report.profile.find((row) => row.runtime === 'floor');
  return [
    [
      'runtime',
      'steps/s',
      '÷ floor',
      'CPU ms/step',
      '÷ floor',
      'main thread',
      'workflow threads',
      'promises/step (workflow threads)',
      'of them by workflow code (stack captured)',
      'stack captures ms/step (profiled)',
      'profiled threads busy ms/step',
      'steps/s of each batch',
    ],
    report.profile.map((row) => [
      row.label,
      fmt(row.stepsPerSecond, 1),
      ratio(row.stepsPerSecond, floor?.stepsPerSecond),
      fmt(row.cpuMsPerStep, 3),
      ratio(row.cpuMsPerStep, floor?.cpuMsPerStep),
      fmt(row.mainCpuMsPerStep, 3),
      fmt(row.workflowCpuMsPerStep, 3),
      fmt(row.promisesPerStep, 1),
      row.workflowPromisesPerStep === undefined ? '–' : fmt(row.workflowPromisesPerStep, 1),
      fmt(
        row.threads.reduce((sum, thread) => sum + (thread.stackCaptureMsPerStep ?? 0), 0),
        3,
      ),
      row.threads.map((thread) => `${thread.thread.split(' ')[0]} ${thread.busyMsPerStep.toFixed(3)}`).join(', '),
      (row.batchStepsPerSecond ?? [row.stepsPerSecond]).map((value) => fmt(value, 1)).join(', '),
    ]),
  ];
}

function profileEntryTable(what: string, entries: ProfileEntry[]): [string[], unknown[][]] {
  return [
    [what, 'self ms/step', 'incl. ms/step'],
    entries.map((entry) => [`\`${entry.name.replace(/\|/g, '\\|')}\``, fmt(entry.selfMs, 4), fmt(entry.totalMs, 4)]),
  ];
}

function memoryTable(report: BenchReport): [string[], unknown[][]] {
  const levels = [...new Set(report.memory.map((row) => row.waitingRuns))].sort((a, b) => a - b);
  const runtimes = [...new Set(report.memory.map((row) => row.runtime))];
  const find = (runtime: RuntimeKey, level: number) =>
    report.memory.find((row) => row.runtime === runtime && row.waitingRuns === level);
  const rows = levels.map((level) => {
    const floor = find('floor', level);
    const ours = find('durableAgent', level);
    return [
      level,
      ...runtimes.flatMap((runtime) => {
        const row = find(runtime, level);
        return [kb(row?.rssPerRunBytes), kb(row?.heapPerRunBytes)];
      }),
      ratio(ours?.rssPerRunBytes, floor?.rssPerRunBytes),
      ratio(ours?.heapPerRunBytes, floor?.heapPerRunBytes),
    ];
  });
  return [
    [
      'waiting runs',
      ...runtimes.flatMap((runtime) => [
        `${RUNTIME_LABELS[runtime]} RSS KB/run`,
        `${RUNTIME_LABELS[runtime]} heap KB/run`,
      ]),
      'durable-agent ÷ floor (RSS)',
      'durable-agent ÷ floor (heap)',
    ],
    rows,
  ];
}

function approvalTable(report: BenchReport): [string[], unknown[][]] {
  return [
    ['runs', 'workflow cache', 'runtime', 'at once', 'all approved in (s)', 'p50 ms', 'p95 ms', 'max ms', 'completed'],
    report.approvals.map((row) => [
      row.runs,
      row.cacheSize,
      row.label,
      row.concurrency,
      fmt(row.totalMs / 1000, 1),
      fmt(row.p50Ms, 1),
      fmt(row.p95Ms, 1),
      fmt(row.maxMs, 0),
      `${row.completed}/${row.runs}`,
    ]),
  ];
}

function historyTable(report: BenchReport): [string[], unknown[][]] {
  const rows = report.history.map((row, index) => {
    const previous = report.history[index - 1];
    const added =
      previous && previous.runtime === row.runtime
        ? (row.payloadBytes - previous.payloadBytes) / (row.toolSteps - previous.toolSteps)
        : undefined;
    return [
      row.label,
      row.toolSteps,
      row.events,
      row.payloadBytes,
      row.transcriptBytes,
      `${row.ratio.toFixed(2)}×`,
      fmt(row.payloadBytes / row.toolSteps, 0),
      fmt(added, 0),
    ];
  });
  return [
    [
      'runtime',
      'tool steps',
      'events',
      'history payload bytes',
      'transcript bytes',
      'history ÷ transcript',
      'payload bytes / tool step',
      'added per step',
    ],
    rows,
  ];
}

function historyKindTable(report: BenchReport): [string[], unknown[][]] {
  const longest = new Map<RuntimeKey, HistoryRow>();
  for (const row of report.history) {
    if ((longest.get(row.runtime)?.toolSteps ?? -1) < row.toolSteps) longest.set(row.runtime, row);
  }
  const kinds = [...new Set([...longest.values()].flatMap((row) => Object.keys(row.payloadBytesByKind)))].sort();
  const runtimes = [...longest.values()];
  return [
    ['event kind', ...runtimes.map((row) => `${row.label} (${row.toolSteps} tool steps)`)],
    kinds.map((kind) => [kind, ...runtimes.map((row) => row.payloadBytesByKind[kind] ?? 0)]),
  ];
}

/** Issue 23's targets against the floor: time per step, worker CPU per step. */
const PER_STEP_TARGET = 1.05;
const CPU_TARGET = 1.1;

/** The issues' targets, each met or not with the measured figure. */
export function targetLines(report: BenchReport): string[] {
  const lines: string[] = [];
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'not measured' : ok ? 'met' : 'NOT met');
  const lengths = lengthsOf(report);
  for (const length of [...lengths, 'marginal' as const]) {
    const ours = perStepOf(report, 'durableAgent', length);
    const floor = perStepOf(report, 'floor', length);
    const theirs = perStepOf(report, 'temporalAiSdk', length);
    const what = length === 'marginal' ? 'marginal step' : `${length} tool steps`;
    const toFloor = ours !== undefined && floor ? ours / floor : undefined;
    const toTheirs = ours !== undefined && theirs ? ours / theirs : undefined;
    lines.push(
      `- Per step, ${what}: durable-agent ÷ floor ${fmt(toFloor, 2)}× (target ≤ ${PER_STEP_TARGET.toFixed(2)}: ${verdict(toFloor === undefined ? undefined : toFloor <= PER_STEP_TARGET)}); ` +
        `÷ @temporalio/ai-sdk ${fmt(toTheirs, 2)}× (target ≤ 0.75: ${verdict(toTheirs === undefined ? undefined : toTheirs <= 0.75)})`,
    );
  }
  const longest = lengths[lengths.length - 1];
  if (longest !== undefined) {
    const find = finder(report);
    const ours = find('durableAgent', longest)?.cpuMsPerStep;
    const floor = find('floor', longest)?.cpuMsPerStep;
    const r = ours !== undefined && floor ? ours / floor : undefined;
    lines.push(
      `- Worker CPU per step (${longest} tool steps): ÷ floor ${fmt(r, 2)}× (target ≤ ${CPU_TARGET.toFixed(2)}: ${verdict(r === undefined ? undefined : r <= CPU_TARGET)})`,
    );
  }
  for (const row of report.profile.filter((r) => r.runtime === 'durableAgent')) {
    const floor = report.profile.find((r) => r.runtime === 'floor');
    const r = floor ? row.stepsPerSecond / floor.stepsPerSecond : undefined;
    const cpu = floor ? row.cpuMsPerStep / floor.cpuMsPerStep : undefined;
    const batches = (row.batches ?? 1) === 1 ? 'one batch' : `medians of ${row.batches} batches`;
    lines.push(
      `- ${row.concurrentRuns} runs at once (profile section, ${batches} without the profiler): steps/s ÷ floor ${fmt(r, 2)}× ` +
        `(target ≥ 0.95: ${verdict(r === undefined ? undefined : r >= 0.95)}); worker CPU per step ÷ floor ${fmt(cpu, 2)}×`,
    );
  }
  const levels = [...new Set(report.memory.map((row) => row.waitingRuns))].sort((a, b) => b - a);
  const top = levels.find((level) => level >= 100);
  if (top !== undefined) {
    const ours = report.memory.find((row) => row.runtime === 'durableAgent' && row.waitingRuns === top);
    const floor = report.memory.find((row) => row.runtime === 'floor' && row.waitingRuns === top);
    const rss = ours && floor ? ours.rssPerRunBytes / floor.rssPerRunBytes : undefined;
    const heap = ours && floor ? ours.heapPerRunBytes / floor.heapPerRunBytes : undefined;
    lines.push(
      `- Memory per waiting run (${top} runs): ÷ floor RSS ${fmt(rss, 2)}×, heap ${fmt(heap, 2)}× ` +
        `(target ≤ 1.5: ${verdict(rss !== undefined && heap !== undefined ? rss <= 1.5 && heap <= 1.5 : undefined)})`,
    );
  }
  for (const row of report.approvals.filter((r) => r.runtime === 'durableAgent')) {
    const cache = row.cacheSize === 'default' ? 'default cache' : `cache ${row.cacheSize}`;
    const evicting = row.cacheSize !== 'default' && row.cacheSize < row.runs;
    lines.push(
      `- ${row.runs} waiting runs, ${cache}: ${row.completed}/${row.runs} completed after approval` +
        `${row.completed === row.runs ? '' : ' (RUNS LOST)'}; approval p95 ${fmt(row.p95Ms, 0)} ms` +
        (evicting ? ` (target < 1,000 ms with eviction: ${verdict(row.p95Ms < 1000)})` : ''),
    );
  }
  return lines;
}

function ladderCapsNote(report: BenchReport): string {
  const caps = (report.config as { waiting?: { ladderCaps?: Record<string, number> } }).waiting?.ladderCaps ?? {};
  const notes = Object.entries(caps).map(
    ([runtime, cap]) => `${RUNTIME_LABELS[runtime as RuntimeKey] ?? runtime} up to ${cap} runs`,
  );
  return notes.length > 0 ? ` Measured only ${notes.join(', ')} (more would not fit the worker's heap).` : '';
}

function runsOf(report: BenchReport): string {
  return [...new Set(report.perStep.map((row) => row.runs))].join('/');
}

/** `name version, …` of a versions object, for report headers. */
export function formatVersions(value: unknown): string {
  if (!value || typeof value !== 'object') return 'unknown';
  return Object.entries(value)
    .map(([name, version]) => `${name} ${String(version)}`)
    .join(', ');
}

function fmt(value: number | undefined, digits: number): string {
  return value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);
}

function kb(bytes: number | undefined): string {
  return bytes === undefined ? '–' : (bytes / 1024).toFixed(1);
}

function ratio(a: number | undefined, b: number | undefined): string {
  return a === undefined || b === undefined || b === 0 || Number.isNaN(a) || Number.isNaN(b)
    ? '–'
    : `${(a / b).toFixed(2)}×`;
}

/** A markdown table with padded columns (readable as plain text too). */
export function table(header: string[], rows: unknown[][]): string {
  const cells = [header, ...rows.map((row) => row.map((cell) => String(cell)))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const render = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [render(cells[0]!), rule, ...cells.slice(1).map(render)].join('\n');
}
