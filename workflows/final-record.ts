import { patched, upsertMemo } from '@temporalio/workflow';
import { FINAL_RECORD_MEMO_KEY, finalRunRecord } from '../src/protocol/index.js';
import { PATCHES } from './patches.js';
import type { AgentRunState } from './run-state.js';

/**
 * Records the run's final event log and state in its memo, once, as the run ends (completed, failed or cancelled):
 * a client then reads `events()` and `state()` of the finished run from Temporal with no worker up. The events are
 * those the event query answers (same `seq`, `at`, approval tokens), which the history alone cannot rebuild.
 *
 * `upsertMemo` only adds a command to the activation that ends the run, so it needs no non-cancellable scope: a
 * cancelled run's record goes out with its cancellation. Runs whose history has no marker for this patch (ended on
 * v0.3.0 code) replay without the command.
 */
export function recordFinalEvents(state: AgentRunState): void {
  if (!patched(PATCHES.finalEventRecord)) return;
  upsertMemo({ [FINAL_RECORD_MEMO_KEY]: finalRunRecord(state.events.all(), state.snapshot()) });
}
