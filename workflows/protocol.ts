import { patched, upsertMemo } from '@temporalio/workflow';
import { CURRENT_RUN_PROTOCOL, RUN_PROTOCOL_MEMO_KEY, isRunProtocol } from '../src/protocol/run-protocol.js';
import { legacyProtocol } from './legacy/protocol.js';
import { PATCHES } from './patches.js';

/**
 * The run protocol this execution follows, as a number every branch compares (`protocol >= 4`). Call it once, as
 * the first thing an execution does (before registering handlers), and keep the result: `patched()` answers true
 * whenever the workflow is not replaying, so asking again later would hand an old run now running on this code a
 * newer protocol mid-way.
 *
 * `continuation`: what this execution was continued with, if it was (any workflow's continuation that carries
 * `protocol`). Then:
 * - a continuation carrying `protocol` (written by this code): the run's protocol, whatever code started the run;
 * - a continuation without it (written by v0.1.0–v0.3.0 code): the legacy protocol (`workflows/legacy/protocol.ts`);
 * - a first execution: {@link CURRENT_RUN_PROTOCOL} when new or its history has the release's marker
 *   (`PATCHES.v0_4`), else the legacy protocol its history shows.
 *
 * An execution on protocol 4 or a carried one records it in the run's memo ({@link RUN_PROTOCOL_MEMO_KEY}) in this
 * same first task; a legacy decision records nothing (the histories it replays have no such command).
 */
export function runProtocol(continuation?: { protocol?: number | undefined }): number {
  if (continuation?.protocol !== undefined) {
    const carried = continuation.protocol;
    if (!isRunProtocol(carried)) {
      // Written by newer code (a rollback): fail the task, so that a worker that knows the protocol takes it.
      throw new Error(
        `The run carries protocol ${String(carried)}, which this worker does not know: deploy newer code.`,
      );
    }
    record(carried);
    return carried;
  }
  if (continuation === undefined && patched(PATCHES.v0_4)) {
    record(CURRENT_RUN_PROTOCOL);
    return CURRENT_RUN_PROTOCOL;
  }
  return legacyProtocol();
}

function record(protocol: number): void {
  upsertMemo({ [RUN_PROTOCOL_MEMO_KEY]: protocol });
}
