// The bench's results: their shape (bench/results/latest.json), the tables printed to stdout, and the markdown
// report (bench/results/latest.md) with the machine they were measured on.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { format, resolveConfig } from 'prettier';
import { resolveTemporalBinary } from '../src/worker/dev-server.js';
import { round } from './stats.js';

type RuntimeKey = 'inProcess' | 'durableAgent' | 'temporalAiSdk';

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
}

/** Where a durable runtime's per-step time goes (medians per model step, from history event times). */
export interface StepBreakdownRow {
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
  rounds: number;
  medianWallMs: number;
  runsPerSecond: number;
  stepsPerSecond: number;
  p50LatencyMs: number;
  p95LatencyMs: number;
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

/** Everything one `npm run bench` measured. */
export interface BenchReport {
  date: string;
  command: string;
  quick: boolean;
  config: unknown;
  machine: ReturnType<typeof machineInfo>;
  versions: Record<string, unknown>;
  temporalAiSdk: { available: boolean; reason?: string };
  perStep: PerStepRow[];
  stepBreakdown: StepBreakdownRow[];
  concurrency: ConcurrencyRow[];
  history: HistoryRow[];
  /** Runtimes that failed mid-bench, with the error. */
  failures?: Record<string, string>;
  durationSeconds: number;
}

const LABELS: Record<RuntimeKey, string> = {
  inProcess: 'in-process AI SDK',
  durableAgent: 'durable-agent',
  temporalAiSdk: '@temporalio/ai-sdk',
};

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
export async function writeJson(path: string, report: BenchReport): Promise<void> {
  const options = (await resolveConfig(path)) ?? {};
  writeFileSync(path, await format(JSON.stringify(report), { ...options, parser: 'json' }));
}

/** The result tables, as printed to stdout. */
export function renderTables(report: BenchReport): string {
  const parts: string[] = [];
  parts.push(
    '## 1–2. Per-step time (scripted zero-latency model; each step one tool call, then a final text step)',
    '',
    `Median of ${runsOf(report)} runs per runtime after warm-up; a run is timed from start to result; ms/step = ` +
      'median run time / model steps. "marginal" is the slope between the two run lengths (what one more step ' +
      'costs, without the fixed cost of starting a run).',
    '',
    table(...perStepTable(report)),
    '',
    goalLine(report),
    '',
    '### Where a step goes (from history event times, median per model step, longest run)',
    '',
    'WFT = workflow task. "wait" is the server handing a task to the worker (scheduled → started); "run" is ' +
      'started → completed. "client" is the rest of the client-measured time (start and result RPCs). Medians per ' +
      'column, so the columns need not add up exactly to the total.',
    '',
    table(
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
      report.stepBreakdown.map((row) => [
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
    ),
    '',
    '## 3. Concurrent runs on one worker',
    '',
    table(
      ['runtime', 'runs at once', 'steps/run', 'rounds', 'wall ms (median)', 'runs/s', 'steps/s', 'p50 ms', 'p95 ms'],
      report.concurrency.map((row) => [
        row.label,
        row.concurrentRuns,
        row.modelStepsPerRun,
        row.rounds,
        row.medianWallMs,
        row.runsPerSecond,
        row.stepsPerSecond,
        row.p50LatencyMs,
        row.p95LatencyMs,
      ]),
    ),
    '',
    '## 4. History bytes as the conversation grows (2 KB tool outputs)',
    '',
    "History payload bytes: sum of every payload `data` in the run's history events. Transcript bytes: the run's " +
      'messages as JSON (system, user, assistant, tool), each message once. "Added per step": payload bytes added ' +
      'per extra tool step since the previous row (constant when growth is linear).',
    '',
    table(...historyTable(report)),
    '',
  );
  if (!report.temporalAiSdk.available) {
    parts.push(`@temporalio/ai-sdk could not run here: ${report.temporalAiSdk.reason ?? 'unknown reason'}`, '');
  }
  for (const [runtime, error] of Object.entries(report.failures ?? {})) {
    parts.push(`${LABELS[runtime as RuntimeKey] ?? runtime} failed during the bench: ${error}`, '');
  }
  return `${parts.join('\n')}\n`;
}

/** The full markdown report: when, where, what, then the tables. */
export function renderMarkdown(report: BenchReport): string {
  const m = report.machine;
  const versions = report.versions;
  return [
    '# durable-agent benchmark results',
    '',
    `- Date: ${report.date}${report.quick ? ' (BENCH_QUICK=1: short smoke run, not for comparison)' : ''}`,
    `- Command: \`${report.command}\` (${report.durationSeconds} s in all)`,
    `- Machine: ${m.cpuCount} × ${m.cpuModel}${m.cpuSpeedMHz ? ` @ ${m.cpuSpeedMHz} MHz` : ''}, ${m.memoryGiB} GiB, ${m.platform}`,
    `- Load average (1 min) at start/end: ${m.loadAverage.start}/${m.loadAverage.end} (other processes on the ` +
      'machine, e.g. test suites, share its cores and skew timings)',
    `- Node ${m.node}; Temporal CLI dev server: ${String(versions.temporalCli)}`,
    `- durable-agent on ${formatVersions(versions.durableAgent)}`,
    `- Temporal AI SDK integration: ${
      report.temporalAiSdk.available ? formatVersions(versions.temporalAiSdk) : 'not run (see below)'
    }`,
    '- One dev server for everything; each durable runtime has its worker in a child process of its own (default ' +
      'Temporal worker settings) on its own task queue; the bench process only runs clients and the in-process loop.',
    '',
    renderTables(report),
    '## Where the history bytes go (longest run, by event kind)',
    '',
    table(...breakdownTable(report)),
    '',
  ].join('\n');
}

function runsOf(report: BenchReport): string {
  const counts = [...new Set(report.perStep.map((row) => row.runs))];
  return counts.join('/');
}

function perStepTable(report: BenchReport): [string[], unknown[][]] {
  const lengths = [...new Set(report.perStep.map((row) => row.toolSteps))].sort((a, b) => a - b);
  const find = (runtime: RuntimeKey, toolSteps: number) =>
    report.perStep.find((row) => row.runtime === runtime && row.toolSteps === toolSteps);
  const rows: unknown[][] = [];
  const line = (name: string, get: (runtime: RuntimeKey) => number | undefined, runMs: (r: RuntimeKey) => string) => {
    const inProcess = get('inProcess');
    const ours = get('durableAgent');
    const theirs = get('temporalAiSdk');
    rows.push([
      name,
      fmt(inProcess, 3),
      runMs('durableAgent'),
      fmt(ours, 2),
      runMs('temporalAiSdk'),
      fmt(theirs, 2),
      fmt(ours !== undefined && inProcess !== undefined ? ours - inProcess : undefined, 2),
      ratio(ours, inProcess, 0),
      ratio(ours, theirs, 2),
    ]);
  };
  for (const toolSteps of lengths) {
    const steps = find('durableAgent', toolSteps)?.modelSteps ?? toolSteps + 1;
    line(
      `${toolSteps} tool steps (${steps} model steps)`,
      (runtime) => find(runtime, toolSteps)?.msPerStep,
      (runtime) => fmt(find(runtime, toolSteps)?.medianRunMs, 1),
    );
  }
  if (lengths.length >= 2) {
    const [short, long] = [lengths[0]!, lengths[lengths.length - 1]!];
    line(
      `marginal (${short}→${long} tool steps)`,
      (runtime) => {
        const a = find(runtime, short);
        const b = find(runtime, long);
        return a && b ? (b.medianRunMs - a.medianRunMs) / (b.modelSteps - a.modelSteps) : undefined;
      },
      () => '',
    );
  }
  return [
    [
      'run',
      'in-process ms/step',
      'durable-agent run ms',
      'durable-agent ms/step',
      '@temporalio/ai-sdk run ms',
      '@temporalio/ai-sdk ms/step',
      'durable overhead ms/step',
      'durable-agent ÷ in-process',
      'durable-agent ÷ @temporalio/ai-sdk',
    ],
    rows,
  ];
}

function goalLine(report: BenchReport): string {
  if (!report.temporalAiSdk.available || !report.perStep.some((row) => row.runtime === 'temporalAiSdk')) {
    return 'Goal (durable-agent per-step time ≤ @temporalio/ai-sdk): not measured, @temporalio/ai-sdk did not run.';
  }
  const verdicts = [...new Set(report.perStep.map((row) => row.toolSteps))].map((toolSteps) => {
    const ours = report.perStep.find((row) => row.runtime === 'durableAgent' && row.toolSteps === toolSteps);
    const theirs = report.perStep.find((row) => row.runtime === 'temporalAiSdk' && row.toolSteps === toolSteps);
    if (!ours || !theirs) return `${toolSteps} tool steps: n/a`;
    const r = ours.msPerStep / theirs.msPerStep;
    return `${toolSteps} tool steps: ${r <= 1 ? 'met' : 'NOT met'} (${r.toFixed(2)}×)`;
  });
  return `Goal (durable-agent per-step time ≤ @temporalio/ai-sdk): ${verdicts.join('; ')}.`;
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

function breakdownTable(report: BenchReport): [string[], unknown[][]] {
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

function formatVersions(value: unknown): string {
  if (!value || typeof value !== 'object') return 'unknown';
  return Object.entries(value)
    .map(([name, version]) => `${name} ${String(version)}`)
    .join(', ');
}

function fmt(value: number | undefined, digits: number): string {
  return value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);
}

function ratio(a: number | undefined, b: number | undefined, digits: number): string {
  return a === undefined || b === undefined || b === 0 ? '–' : `${(a / b).toFixed(digits)}×`;
}

/** A markdown table with padded columns (readable as plain text too). */
function table(header: string[], rows: unknown[][]): string {
  const cells = [header, ...rows.map((row) => row.map((cell) => String(cell)))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const render = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [render(cells[0]!), rule, ...cells.slice(1).map(render)].join('\n');
}
