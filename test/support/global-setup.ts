// Vitest globalSetup: one Temporal dev server for the whole run. Test files read its address with
// `inject('temporalAddress')` (see ./temporal.ts); tests that restart a server start their own.
import type { TestProject } from 'vitest/node';
import { startDevServer } from '../../src/worker/dev-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `host:port` of the suite's Temporal frontend. */
    temporalAddress: string;
    /** Namespace the suite's tests run in. */
    temporalNamespace: string;
  }
}

/**
 * Starts the shared dev server, or uses `TEMPORAL_TEST_ADDRESS` (with optional `TEMPORAL_TEST_NAMESPACE`) to run
 * the suite against a server that is already up, e.g. the docker-compose one.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const existing = process.env.TEMPORAL_TEST_ADDRESS;
  if (existing) {
    project.provide('temporalAddress', existing);
    project.provide('temporalNamespace', process.env.TEMPORAL_TEST_NAMESPACE ?? 'default');
    return undefined;
  }
  const startedAt = performance.now();
  const server = await startDevServer({ log: process.env.TEMPORAL_TEST_LOG === '1' });
  if (process.env.TEMPORAL_TEST_LOG === '1') {
    console.log(`Temporal dev server at ${server.address} in ${Math.round(performance.now() - startedAt)} ms`);
  }
  project.provide('temporalAddress', server.address);
  project.provide('temporalNamespace', server.namespace);
  return () => server.stop();
}
