// Workers and clients reach Temporal through TLS, with an API key the way Temporal Cloud expects it and with a
// client certificate (mutual TLS), configured only through Temporal's environment configuration: TEMPORAL_*
// variables, or a temporal.toml profile. The suite's dev server sits behind a real TLS-terminating gRPC proxy with
// a private CA; the proxy records what reached it, so the tests see the bearer token and the client certificate
// on every call, the worker's (Rust core) and the client's (grpc-js) alike.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAssistant } from '../../examples/agents.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { createAgentWorker, workflowsPath } from '../../src/worker/create-agent-worker.js';
import { startGrpcTlsProxy, type GrpcTlsProxy, type ProxiedRequest } from '../support/grpc-tls-proxy.js';
import { createTestEnv, bundleWorkflows, testServer, uniqueTaskQueue } from '../support/temporal.js';
import { createTestCertificates, type TestCertificates } from '../support/test-certificates.js';

const API_KEY = 'test-api-key-7f3a';
const WEATHER_PROMPT = 'What is the current weather in Paris?';

let certs: TestCertificates;
let apiKeyProxy: GrpcTlsProxy;
let mtlsProxy: GrpcTlsProxy;

beforeAll(async () => {
  // Installs the quiet worker runtime before any worker exists; the environment itself is not needed.
  await (await createTestEnv()).teardown();
  certs = await createTestCertificates();
  const target = testServer().address;
  apiKeyProxy = await startGrpcTlsProxy({ target, cert: certs.server.cert, key: certs.server.key, apiKey: API_KEY });
  mtlsProxy = await startGrpcTlsProxy({
    target,
    cert: certs.server.cert,
    key: certs.server.key,
    clientCa: certs.ca.cert,
    requireClientCert: true,
  });
});

afterAll(async () => {
  await apiKeyProxy?.close();
  await mtlsProxy?.close();
  certs?.remove();
});

/**
 * Runs the assistant on a worker and a client that both connect from `env` alone (nothing else configured), and
 * returns the run's text.
 */
async function runThrough(env: Record<string, string>): Promise<string> {
  const taskQueue = uniqueTaskQueue('tls');
  const worker: Worker = await createAgentWorker({
    agents: [createAssistant('offline/demo')],
    env: { ...env, TEMPORAL_TASK_QUEUE: taskQueue },
    providers: new ProviderRegistry({ env: {} }),
    workflowBundle: await bundleWorkflows(workflowsPath()),
  });
  try {
    return await worker.runUntil(async () => {
      const client = await AgentClient.connect({ env: { ...env, TEMPORAL_TASK_QUEUE: taskQueue } });
      try {
        const run = await client.start('assistant', WEATHER_PROMPT, {
          workflow: { workflowExecutionTimeout: '1 minute' },
        });
        const result = await run.result();
        expect(result.toolCalls.map((call) => call.toolName)).toEqual(['get_weather']);
        return result.text;
      } finally {
        await client.temporal.connection.close();
      }
    });
  } finally {
    await worker.connection?.close();
  }
}

/** Calls by the Rust core (the worker) and by grpc-js (the client), told apart by their user agent. */
function bySide(requests: ProxiedRequest[]): { worker: ProxiedRequest[]; client: ProxiedRequest[] } {
  const isClient = (request: ProxiedRequest) => /grpc-node-js/.test(request.metadata['user-agent'] ?? '');
  return { worker: requests.filter((r) => !isClient(r)), client: requests.filter(isClient) };
}

describe('connecting to a TLS endpoint with an API key (Temporal Cloud style)', () => {
  it('runs an agent end to end with only TEMPORAL_ADDRESS, TEMPORAL_API_KEY and the CA in the environment', async () => {
    const before = apiKeyProxy.requests.length;
    const text = await runThrough({
      TEMPORAL_ADDRESS: apiKeyProxy.address,
      TEMPORAL_API_KEY: API_KEY,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca.certPath,
      // localhost is what the certificate names; the proxy listens on 127.0.0.1, which it names too.
      TEMPORAL_TLS_SERVER_NAME: 'localhost',
    });
    expect(text).toContain('light rain');

    const requests = apiKeyProxy.requests.slice(before);
    const { worker, client } = bySide(requests);
    // Both sides went through the proxy: the worker polled and completed tasks, the client started and read.
    expect(worker.map((r) => r.path)).toContain(
      '/temporal.api.workflowservice.v1.WorkflowService/PollWorkflowTaskQueue',
    );
    expect(worker.map((r) => r.path)).toContain(
      '/temporal.api.workflowservice.v1.WorkflowService/RespondActivityTaskCompleted',
    );
    expect(client.map((r) => r.path)).toContain(
      '/temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution',
    );
    // Every call carried the key as Temporal Cloud expects it, and none was refused.
    for (const request of requests) {
      expect(request.authorization, request.path).toBe(`Bearer ${API_KEY}`);
      expect(request.refused).toBe(false);
    }
  });

  it('lets explicit options win over the environment', async () => {
    const before = apiKeyProxy.requests.length;
    const client = await AgentClient.connect({
      // The environment points elsewhere, with a wrong key: the options override both.
      env: { TEMPORAL_ADDRESS: '127.0.0.1:1', TEMPORAL_API_KEY: 'wrong-key' },
      address: apiKeyProxy.address,
      apiKey: API_KEY,
      tls: { serverRootCACertificate: Buffer.from(certs.ca.cert) },
      namespace: testServer().namespace,
    });
    try {
      expect(client.connectionSettings).toMatchObject({
        address: apiKeyProxy.address,
        sources: { address: 'option', namespace: 'option' },
        tls: { enabled: true, why: 'the tls option' },
      });
      await client.temporal.workflowService.getSystemInfo({});
    } finally {
      await client.temporal.connection.close();
    }
    const requests = apiKeyProxy.requests.slice(before);
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.every((r) => r.authorization === `Bearer ${API_KEY}`)).toBe(true);
  });
});

describe('connecting with a client certificate from a temporal.toml profile', () => {
  it('runs an agent end to end with TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE, presenting the certificate', async () => {
    const configFile = join(certs.dir, 'temporal.toml');
    writeFileSync(
      configFile,
      [
        '[profile.default]',
        'address = "127.0.0.1:1"',
        '',
        '[profile.mtls]',
        `address = "${mtlsProxy.address}"`,
        `namespace = "${testServer().namespace}"`,
        '[profile.mtls.tls]',
        `server_ca_cert_path = "${certs.ca.certPath}"`,
        `client_cert_path = "${certs.client.certPath}"`,
        `client_key_path = "${certs.client.keyPath}"`,
        '',
      ].join('\n'),
    );
    const before = mtlsProxy.requests.length;
    const text = await runThrough({ TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'mtls' });
    expect(text).toContain('light rain');

    const requests = mtlsProxy.requests.slice(before);
    const { worker, client } = bySide(requests);
    expect(worker.length).toBeGreaterThan(0);
    expect(client.length).toBeGreaterThan(0);
    for (const request of requests) expect(request.clientCertCommonName).toBe('durable-agent-test-client');
  });
});
