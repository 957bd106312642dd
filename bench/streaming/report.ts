// The streaming bench's results: their shape (bench/results/streaming.json) and the markdown report
// (bench/results/streaming.md, also printed) with the machine, load, server and versions they were measured under.
import { DEFAULT_DELTA_INTERVAL_MS } from '../../src/protocol/run-stream.js';
import { formatVersions, table, type machineInfo } from '../report.js';
import { round } from '../stats.js';
import { CPU_RATIO_TARGET, type CostSection } from './cost.js';
import type { HeadToHeadRow } from './head-to-head.js';
import type { CostSummary, DeliverySummary } from './summary.js';
import type { SweepRow } from './sweep.js';
import { FIRST_TOKEN_TARGET_MS, LATER_TOKEN_SLACK_MS, type WatchersRow } from './watchers.js';

/** Everything one `npm run bench:streaming` measured. */
export interface StreamingReport {
  date: string;
  command: string;
  quick: boolean;
  config: {
    delivery: { tokens: number; delayMs: number };
    headToHead: { reps: number };
    watchers: { levels: number[]; oneRunBatches: number };
    sweep: { intervals: number[]; tokens: number; delayMs: number; reps: number };
    cost: { tokens: number; delayMs: number; reps: number };
  };
  machine: ReturnType<typeof machineInfo>;
  /** 1-minute load average as each section began. */
  load: { section: string; loadAverage: number }[];
  server: { temporalCli: string; args: string[] };
  versions: { durableAgent: Record<string, string>; temporalAiSdk?: unknown };
  /** Whether @temporalio/ai-sdk ran, and why not. */
  temporalAiSdk: { available: boolean; reason?: string };
  defaultIntervalMs: number;
  headToHead: HeadToHeadRow[];
  sweep: SweepRow[];
  watchers: WatchersRow[];
  /** Section 4 on Workflow Streams (`cost`) and on Redis (`costRedis`). */
  cost?: CostSection;
  costRedis?: CostSection;
  durationSeconds: number;
  /** Sections not run this time (`--only`), kept from an earlier run. */
  kept?: { sections: string[]; date: string; command: string };
}

const LATENCY = 'latency = the model emitted a token → a watcher in the bench process received it (ms)';

/** The report as markdown. */
export function renderStreamingMarkdown(report: StreamingReport): string {
  const { machine } = report;
  const load = report.load.map((entry) => `${entry.section} ${entry.loadAverage}`).join(', ');
  const lines = [
    `# Streaming bench (${report.date})`,
    '',
    `- Command: \`${report.command}\`${report.quick ? ' (quick: a smoke run, too few samples to trust)' : ''}, ` +
      `${report.durationSeconds} s`,
    ...(report.kept
      ? [
          `- Kept from the run of ${report.kept.date} (\`${report.kept.command}\`), not run this time: ` +
            `${report.kept.sections.join(', ')}`,
        ]
      : []),
    `- Machine: ${machine.cpuModel}, ${machine.cpuCount} cores, ${machine.memoryGiB} GiB, ${machine.platform}, ` +
      `Node ${machine.node}`,
    `- Load average (1 min): ${machine.loadAverage.start} at start, ${machine.loadAverage.end} at end; as each ` +
      `section began: ${load}`,
    `- Temporal dev server: ${report.server.temporalCli}; flags \`${report.server.args.join(' ')}\``,
    `- durable-agent on ${formatVersions(report.versions.durableAgent)}; default batch interval ` +
      `${report.defaultIntervalMs} ms`,
    `- @temporalio/ai-sdk: ${
      report.temporalAiSdk.available
        ? `${formatVersions(report.versions.temporalAiSdk)}; its default \`streamingBatchInterval\` (100 ms)`
        : `not run: ${report.temporalAiSdk.reason ?? 'unknown'}`
    }`,
    `- Each worker runs in a child process of its own; worker CPU is that process's CPU time (user + system, all ` +
      'threads) over the batch ÷ runs, split into its main thread (activities, payload conversion) and its ' +
      'workflow threads (the sandbox); the rest is the Rust core and GC.',
    '',
    ...headToHeadLines(report),
    ...sweepLines(report),
    ...watchersLines(report),
    ...costLines(report.cost, 'Workflow Streams', '4'),
    ...costLines(report.costRedis, 'Redis', '4b'),
    ...transportLines(report),
  ];
  return `${lines.join('\n')}\n`;
}

function headToHeadLines(report: StreamingReport): string[] {
  if (report.headToHead.length === 0) return [];
  const { config } = report;
  return [
    `## 1. durable-agent against @temporalio/ai-sdk's streaming`,
    '',
    `One run at a time, one watcher, ${config.delivery.tokens} tokens one every ${config.delivery.delayMs} ms, the ` +
      `runtimes alternating run by run; ${LATENCY}. History and CPU are per streamed step (each run is one step), ` +
      "with its watcher's polls (updates) included. The pollCooldown 0 row is the same runtime with its stream " +
      "client told not to pause 100 ms after a poll that drained the log, as durable-agent's client does not.",
    '',
    table(
      [
        'runtime',
        'runs',
        ...latencyHeader,
        'missed',
        'history events',
        'payload bytes',
        'signals',
        'updates',
        'workflow tasks',
        'worker CPU ms (main / workflow)',
      ],
      report.headToHead.map((row) => [
        row.label,
        row.runs,
        ...latencyCells(row),
        row.missed,
        row.events,
        row.payloadBytes,
        row.signals,
        row.updates,
        row.workflowTasks,
        `${row.cpuMs} (${row.mainCpuMs} / ${row.workflowCpuMs})`,
      ]),
    ),
    '',
  ];
}

function sweepLines(report: StreamingReport): string[] {
  if (report.sweep.length === 0) return [];
  const { config } = report;
  return [
    '## 2. The batch interval',
    '',
    `durable-agent, one step of ${config.sweep.tokens} tokens one every ${config.sweep.delayMs} ms per run, one ` +
      `watcher, ${config.sweep.reps} runs per interval alternating; "not streamed" is the same step with ` +
      '`streaming: false` (the model answers the same text size after the same time). Cost per streamed step, ' +
      "with the watcher's polls (updates); CPU ratio against not streamed.",
    '',
    table(
      [
        'interval ms',
        'later p50',
        'later p95',
        'first p50',
        'signals',
        'updates',
        'workflow tasks',
        'history events',
        'payload bytes',
        'worker CPU ms (main / workflow)',
        '× not streamed',
      ],
      report.sweep.map((row) => [
        row.intervalMs,
        row.delivery?.laterP50 ?? '–',
        row.delivery?.laterP95 ?? '–',
        row.delivery?.firstP50 ?? '–',
        row.signals,
        row.updates,
        row.workflowTasks,
        row.events,
        row.payloadBytes,
        `${row.cpuMs} (${row.mainCpuMs} / ${row.workflowCpuMs})`,
        `${row.cpuRatio}×`,
      ]),
    ),
    '',
  ];
}

function watchersLines(report: StreamingReport): string[] {
  if (report.watchers.length === 0) return [];
  const { config } = report;
  return [
    '## 3. Watchers',
    '',
    `Runs started at once, ${config.delivery.tokens} tokens one every ${config.delivery.delayMs} ms each; ` +
      `${LATENCY}, over every token of every watcher. "shared": the run's 3 watchers in this process on one ` +
      'Temporal client (durable-agent\'s client reads them all through one subscription); "separate": each on its ' +
      'own client and connection, a subscription each, as separate processes would be. @temporalio/ai-sdk has no ' +
      'shared subscription (each `subscribe` polls on its own), so it has no "shared" rows. Targets (issue 19, ' +
      `durable-agent): first token p50 ≤ ${FIRST_TOKEN_TARGET_MS} ms; later tokens p95 ≤ batch interval + ` +
      `${LATER_TOKEN_SLACK_MS} ms = ${DEFAULT_DELTA_INTERVAL_MS + LATER_TOKEN_SLACK_MS} ms.`,
    '',
    table(
      [
        'runtime',
        'runs',
        'watchers',
        'how',
        ...latencyHeader,
        'missed',
        'updates per run',
        'actions per run',
        'Redis commands per run',
        'worker CPU ms per run',
        'targets',
      ],
      report.watchers.map((row) => [
        row.label,
        row.runs,
        row.watchers,
        row.mode,
        ...latencyCells(row),
        row.missed,
        row.updatesPerRun,
        row.actionsPerRun ?? '–',
        row.redisCommandsPerRun ?? '–',
        row.cpuMsPerRun,
        row.meetsTargets
          ? `first ${row.meetsTargets.first ? 'met' : 'missed'}, later ${row.meetsTargets.later ? 'met' : 'missed'}`
          : '',
      ]),
    ),
    '',
  ];
}

/** Both transports' cost side by side, per 1,000 steps: what docs/performance.md quotes. */
function transportLines(report: StreamingReport): string[] {
  const { cost, costRedis } = report;
  if (!cost || !costRedis) return [];
  const per1000 = (value: number) => Math.round(value * 1000);
  const row = (label: string, summary: CostSummary) => [
    label,
    per1000(summary.actions),
    per1000(summary.signals + summary.updates),
    per1000(summary.redisCommands),
    summary.events,
    summary.cpuMs,
  ];
  return [
    '## 5. The two transports per 1,000 steps',
    '',
    `Section 4's medians (one step of ${cost.tokens} tokens, one watcher from the start for "watched") × 1,000.`,
    '',
    table(
      [
        'transport, step',
        'Temporal actions per 1,000',
        'signals + updates per 1,000',
        'Redis commands per 1,000',
        'history events per step',
        'worker CPU ms per step',
      ],
      [
        row('Workflow Streams, not streamed', cost.notStreamed),
        row('Workflow Streams, unwatched', cost.streamed),
        row('Workflow Streams, watched', cost.watched),
        row('Redis, not streamed', costRedis.notStreamed),
        row('Redis, unwatched', costRedis.streamed),
        row('Redis, watched', costRedis.watched),
      ],
    ),
    '',
  ];
}

const latencyHeader = ['first p50', 'first p95', 'later p50', 'later p95'];

function latencyCells(row: DeliverySummary): unknown[] {
  return [row.firstP50, row.firstP95, row.laterP50, row.laterP95];
}

const COST_KEYS = [
  'events',
  'payloadBytes',
  'signals',
  'updates',
  'workflowTasks',
  'actions',
  'redisCommands',
  'cpuMs',
  'mainCpuMs',
  'workflowCpuMs',
];

function costLines(cost: CostSection | undefined, transport: string, number: string): string[] {
  if (!cost) return [];
  const cells = (row: Record<string, number>, suffix = '') =>
    COST_KEYS.map((key) => (Number.isFinite(row[key]) ? `${row[key]}${suffix}` : '–'));
  const met = cost.ratio.cpuMs <= CPU_RATIO_TARGET;
  const watchedOverUnwatched = round(cost.watched.cpuMs / Math.max(0.1, cost.streamed.cpuMs), 2);
  const readRatio = round(cost.readInProcessCpuMs / Math.max(0.1, cost.notStreamed.cpuMs), 2);
  return [
    `## ${number}. What streaming costs a step: ${transport}`,
    '',
    `durable-agent on ${transport}, one step of ${cost.tokens} tokens over ${cost.overMs / 1000} s (one every ` +
      `${cost.overMs / Math.max(1, cost.tokens - 1)} ms) at the default interval: streamed with no watcher (${
        transport === 'Redis'
          ? 'on Redis a step publishes whether anyone watches or not'
          : 'a step publishes only while someone watches'
      }), streamed with one watcher from the start (its polls included), and ` +
      `not streamed (\`streaming: false\`, the model answering after the same time); ${cost.reps} runs each ` +
      'alternating; medians per step.',
    '',
    table(
      [
        'step',
        'history events',
        'payload bytes',
        'signals',
        'updates',
        'workflow tasks',
        'Temporal actions',
        'Redis commands',
        'worker CPU ms',
        'main thread',
        'workflow threads',
      ],
      [
        ['streamed, no watcher', ...cells({ ...cost.streamed })],
        ['streamed, one watcher', ...cells({ ...cost.watched })],
        ['not streamed', ...cells({ ...cost.notStreamed })],
        ['no watcher ÷ not streamed', ...cells({ ...cost.ratio }, '×')],
        ['one watcher ÷ not streamed', ...cells({ ...cost.watchedRatio }, '×')],
        [
          'model stream read in this process, no Temporal',
          ...COST_KEYS.map((key) => (key === 'cpuMs' ? cost.readInProcessCpuMs : '–')),
        ],
      ],
    ),
    '',
    `Target (issue 19): worker CPU per streamed step ≤ ${CPU_RATIO_TARGET}× a non-streamed one, no watcher: ` +
      `${met ? 'met' : 'missed'} (${cost.ratio.cpuMs}×); issue 32's, a watched step ≤ ${CPU_RATIO_TARGET}× the ` +
      `unwatched streamed one: ${watchedOverUnwatched <= CPU_RATIO_TARGET ? 'met' : 'missed'} ` +
      `(${watchedOverUnwatched}×). ` +
      'Temporal actions are estimated from the history (see bench/streaming/batch.ts; heartbeats and queries are not ' +
      "in history, so not counted); Redis commands are the bench's redis-server's, the watcher's reads included. " +
      "Where the no-watcher step's extra CPU goes, measured in " +
      `this process with no Temporal: reading the same model stream as \`generate\` reads it (\`callModel\` with a ` +
      `delta listener) costs ${cost.readInProcessCpuMs} ms, the same stream read by a bare reader loop ` +
      `${cost.readRawCpuMs} ms, and ${cost.tokens - 1} bare timers of the model's delay alone ${cost.wakeUpsCpuMs} ms ` +
      `(${readRatio}× the non-streamed step for the whole read): the process waking for each of the model's chunks, ` +
      'not publishing and not the delta listener. ' +
      (transport === 'Redis'
        ? `A watcher adds ${round(cost.watched.cpuMs - cost.streamed.cpuMs, 1)} ms of worker CPU per step (the ` +
          'difference between the two streamed rows): nothing reaches the run per watcher.'
        : `With a watcher, each publish adds ${cost.cpuMsPerPublish} ms of worker CPU (the difference between the ` +
          "two streamed rows ÷ the signals: a signal's workflow task and the watcher's next poll's)."),
    '',
  ];
}
