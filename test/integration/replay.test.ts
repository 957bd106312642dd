// Determinism across releases: every committed history of every released workflow version (recorded from the
// integration scenarios with RECORD_HISTORIES=1) replays against the current workflow code, committed fixtures
// never change, and a deliberately non-deterministic change is caught.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../src/worker/create-agent-worker.js';
import { fixtureFiles, fixtureVersions, HISTORIES_DIR, readManifest, sha256 } from '../support/release-fixtures.js';
import { bundleWorkflows } from '../support/temporal.js';

const NON_DETERMINISTIC = fileURLToPath(new URL('../fixtures/nondeterministic/workflows.ts', import.meta.url));

/**
 * The manifest of each released version, pinned here: changing a released fixture means changing its manifest and
 * this line, which a review must never accept. A new release adds its line when its fixtures are frozen.
 */
const RELEASED_MANIFESTS: Record<string, string> = {
  'v0.1.0': '3eb5c228f54fbe24ef3836381323bcc9c7f726a751b20fd4b0af03c085cc3b52',
  'v0.2.0': '1ed0a87035888d6c944f1463ead3d494f6ab0ef01d2861987e81bb45fb1ddcc4',
  'v0.3.0': 'c6fd4a894d0d1c9005908f06375444b6d07cb02d99e3529769f139c89dd8238d',
  'v0.4.0': '7b4e387d3b8491fc3a9f80aca2013b6a88812e8751c968c8cc8ba2629459574c',
};

const fixtures = fixtureVersions().flatMap((version) => fixtureFiles(version).map((file) => `${version}/${file}`));

function loadHistory(fixture: string) {
  return historyFromJSON(JSON.parse(readFileSync(`${HISTORIES_DIR}${fixture}`, 'utf8')));
}

describe('release fixtures', () => {
  it('keeps the scenarios recorded by v0.1.0', () => {
    expect(fixtureFiles('v0.1.0')).toEqual([
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
    ]);
  });

  it.each(fixtureVersions())('%s: every fixture is in its manifest and unchanged', (version) => {
    const manifest = readManifest(version);
    expect([...manifest.keys()].sort()).toEqual(fixtureFiles(version));
    for (const file of fixtureFiles(version)) {
      expect(sha256(readFileSync(`${HISTORIES_DIR}${version}/${file}`)), `${version}/${file} changed`).toBe(
        manifest.get(file),
      );
    }
  });

  it.each(Object.keys(RELEASED_MANIFESTS))('%s: the released manifest is the pinned one', (version) => {
    expect(sha256(readFileSync(`${HISTORIES_DIR}${version}/SHA256SUMS`))).toBe(RELEASED_MANIFESTS[version]);
  });
});

describe('replay of recorded histories', () => {
  it.each(fixtures)('replays %s deterministically', async (fixture) => {
    const workflowBundle = await bundleWorkflows(workflowsPath());
    await expect(Worker.runReplayHistory({ workflowBundle }, loadHistory(fixture))).resolves.toBeUndefined();
  });

  it('replays with a bundle of the durable-agent/workflow entry (what users re-export beside their workflows)', async () => {
    const entry = fileURLToPath(new URL('../../src/workflow/index.ts', import.meta.url));
    const workflowBundle = await bundleWorkflows(entry);
    await expect(
      Worker.runReplayHistory({ workflowBundle }, loadHistory('v0.1.0/approval-approved.json')),
    ).resolves.toBeUndefined();
  });

  it('fails replay after a non-deterministic change to the workflow', async () => {
    const workflowBundle = await bundleWorkflows(NON_DETERMINISTIC);
    const error = await Worker.runReplayHistory(
      { workflowBundle },
      loadHistory('v0.1.0/multi-step-parallel.json'),
    ).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DeterminismViolationError);
  });
});
