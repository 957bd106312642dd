// History bytes as the conversation grows: one run of each length with large tool outputs, every payload's bytes in
// its history against the transcript's JSON bytes (each message once).
import type { Client } from '@temporalio/client';
import { historyStats } from '../history-bytes.js';
import type { BenchRuntime } from '../runtimes.js';
import { round } from '../stats.js';
import { modelSteps } from '../workload.js';
import type { HistoryRow } from '../report.js';

/** Settings of the history section. */
export interface HistoryConfig {
  toolSteps: number[];
  bytes: number;
}

/** Runs the section for the runtimes that can read a transcript back. */
export async function measureHistory(
  temporal: Client,
  runtimes: BenchRuntime[],
  config: HistoryConfig,
  guarded: <T>(runtime: BenchRuntime, what: () => Promise<T>) => Promise<T | undefined>,
  log: (line: string) => void,
): Promise<HistoryRow[]> {
  const rows: HistoryRow[] = [];
  for (const runtime of runtimes.filter((r) => r.transcript !== undefined)) {
    for (const toolSteps of config.toolSteps) {
      const spec = { toolSteps, bytes: config.bytes };
      log(`History: ${runtime.label}, ${toolSteps} tool steps with ${spec.bytes}-byte outputs`);
      const row = await guarded(runtime, async () => {
        const { workflowId } = await runtime.run(spec);
        const transcript = await runtime.transcript!(workflowId!);
        const stats = await historyStats(temporal, workflowId!);
        const transcriptBytes = Buffer.byteLength(JSON.stringify(transcript));
        return {
          runtime: runtime.key,
          label: runtime.label,
          toolSteps,
          modelSteps: modelSteps(spec),
          toolOutputBytes: spec.bytes,
          executions: stats.executions,
          events: stats.events,
          payloadBytes: stats.payloadBytes,
          transcriptBytes,
          ratio: round(stats.payloadBytes / transcriptBytes, 3),
          payloadBytesByKind: stats.payloadBytesByKind,
        };
      });
      if (row) rows.push(row);
    }
  }
  return rows;
}
