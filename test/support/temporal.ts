// Helpers every integration test uses: the suite's Temporal server (started once by ./global-setup.ts), a test
// environment per file, fresh task queues and workflow ids per test, and workflow bundles built once per file.
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, type WorkflowBundleWithSourceMap, bundleWorkflowCode } from '@temporalio/worker';
import { inject } from 'vitest';
import { agentBundleOptions } from '../../src/worker/bundle-options.js';
import { combinedWorkflowsPath, workflowsPath as agentWorkflowsPath } from '../../src/worker/workflow-paths.js';

/** Where the suite's Temporal server listens, as provided by the global setup. */
export function testServer(): { address: string; namespace: string } {
  return { address: inject('temporalAddress'), namespace: inject('temporalNamespace') };
}

/**
 * A `TestWorkflowEnvironment` on the suite's server (or on `server`, e.g. one a restart test started itself):
 * create one per file in `beforeAll`, `teardown()` it in `afterAll`. Workers use `env.nativeConnection` with
 * `namespace: env.namespace`; clients use `env.client`.
 */
export async function createTestEnv(
  server: { address: string; namespace: string } = testServer(),
): Promise<TestWorkflowEnvironment> {
  quietWorkerRuntime();
  return TestWorkflowEnvironment.createFromExistingServer({ address: server.address, namespace: server.namespace });
}

/**
 * The worker runtime logs every worker state change at INFO, which buries test output: keep warnings and errors
 * (TEMPORAL_TEST_LOG=1 shows everything). The runtime is a per-process singleton that must be installed before
 * the first connection or worker, hence here, and only when nothing installed one yet.
 */
function quietWorkerRuntime(): void {
  if (Runtime._instance !== undefined) return;
  Runtime.install({ logger: new DefaultLogger(process.env.TEMPORAL_TEST_LOG === '1' ? 'INFO' : 'WARN') });
}

/** A task queue no other test polls, so workers from different tests never steal each other's tasks. */
export function uniqueTaskQueue(prefix = 'test'): string {
  return `${prefix}-${randomUUID()}`;
}

/** A workflow id that cannot collide with earlier runs (the server may keep histories across restarts). */
export function randomWorkflowId(prefix = 'wf'): string {
  return `${prefix}-${randomUUID()}`;
}

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * Bundles a workflows file once per test file (this module is loaded fresh in every file) and hands the same
 * bundle to every worker and replayer: bundling takes seconds, creating a worker from a bundle does not. The agent
 * workflow's entries are bundled as the agent plugin bundles them (its modules preloaded, shared by every run, and
 * TypeScript compiled for the syntax Node runs natively).
 */
export function bundleWorkflows(workflowsPath: string): Promise<WorkflowBundleWithSourceMap> {
  let bundle = bundles.get(workflowsPath);
  if (!bundle) {
    const agentEntry = workflowsPath === agentWorkflowsPath() || workflowsPath === combinedWorkflowsPath();
    const options = { workflowsPath, logger: new DefaultLogger('WARN') };
    bundle = bundleWorkflowCode(agentEntry ? agentBundleOptions(options) : options);
    bundles.set(workflowsPath, bundle);
  }
  return bundle;
}
