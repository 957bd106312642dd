// Determinism: every committed history (recorded from the integration scenarios with RECORD_HISTORIES=1) replays
// against the current workflow code, and a deliberately non-deterministic change is caught.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { bundleWorkflows } from '../support/temporal.js';

const HISTORIES = fileURLToPath(new URL('../fixtures/histories/', import.meta.url));
const NON_DETERMINISTIC = fileURLToPath(new URL('../fixtures/nondeterministic/workflows.ts', import.meta.url));
const files = readdirSync(HISTORIES)
  .filter((f) => f.endsWith('.json'))
  .sort();

function loadHistory(file: string) {
  return historyFromJSON(JSON.parse(readFileSync(`${HISTORIES}${file}`, 'utf8')));
}

describe('replay of recorded histories', () => {
  it('has a recorded history for every scenario', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'approval-approved.json',
        'approval-denied.json',
        'approval-early-and-duplicate.json',
        'approval-timeout.json',
        'approval-two-reverse.json',
        'bad-tool-calls.json',
        'cancel-during-approval.json',
        'cancel-during-model-call.json',
        'cancel-during-tool.json',
        'client-side-tool.json',
        'continue-as-new.json',
        'max-steps.json',
        'multi-step-parallel.json',
        'openai-http.json',
        'server-restart.json',
        'streaming-progress.json',
        'tool-denied-error.json',
        'worker-crash-during-approval.json',
        'worker-crash.json',
      ]),
    );
  });

  it.each(files)('replays %s deterministically', async (file) => {
    const workflowBundle = await bundleWorkflows(workflowsPath());
    await expect(Worker.runReplayHistory({ workflowBundle }, loadHistory(file))).resolves.toBeUndefined();
  });

  it('fails replay after a non-deterministic change to the workflow', async () => {
    const workflowBundle = await bundleWorkflows(NON_DETERMINISTIC);
    const error = await Worker.runReplayHistory({ workflowBundle }, loadHistory('multi-step-parallel.json')).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(DeterminismViolationError);
  });
});
