// "Secrets never enter history", tested with canaries on a real dev server. Secrets are planted where a careless
// runtime leaks them — a tool's HTTP-client error (request headers, the raw request, response headers, toJSON),
// a provider that echoes the API key back in its error body and headers, the payload encryption keys, and the
// environment variables the worker reads them from — then whole histories, decoded payloads, the server's
// description of each run and the worker's log output are searched for every canary.
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { payloadCodecFromEnv } from '../../src/codec/payload-codec-from-env.js';
import { createConsoleLogger, setGlobalLogger } from '../../src/logger.js';
import { ProviderRegistry } from '../../src/models/provider-registry.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { startOpenAIFakeServer, type OpenAIFakeServer } from '../models/openai-fake-server.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { findCanaries, scanRunForSecrets, type Canary } from '../support/secret-scan.js';
import { createTestEnv } from '../support/temporal.js';

const canary = (name: string): string => `canary-${name}-${randomBytes(8).toString('hex')}`;
const CODEC_KEY = randomBytes(32);
const OLD_CODEC_KEY = randomBytes(32);
const CANARIES = {
  toolAuthorization: canary('tool-authorization'),
  toolRawRequest: canary('tool-raw-request'),
  toolResponseCookie: canary('tool-response-cookie'),
  toolJson: canary('tool-json'),
  providerKey: `sk-${canary('provider-key')}`,
} as const;
const ALL: Record<string, Canary> = { ...CANARIES, codecKey: CODEC_KEY, oldCodecKey: OLD_CODEC_KEY };

let env: TestWorkflowEnvironment;
let server: OpenAIFakeServer;
const logLines: string[] = [];

beforeAll(async () => {
  env = await createTestEnv();
  server = await startOpenAIFakeServer();
  // The worker reads its secrets from the environment, as in production.
  vi.stubEnv('OPENAI_API_KEY', CANARIES.providerKey);
  vi.stubEnv('OPENAI_BASE_URL', server.baseURL);
  vi.stubEnv('DURABLE_AGENT_ENCRYPTION_KEY', CODEC_KEY.toString('base64'));
  vi.stubEnv('DURABLE_AGENT_ENCRYPTION_KEY_ID', 'canary-key');
  vi.stubEnv('DURABLE_AGENT_DECRYPTION_KEYS', `old-key:${OLD_CODEC_KEY.toString('hex')}`);
  vi.stubEnv('DURABLE_AGENT_COMPRESSION', undefined);
  vi.stubEnv('DURABLE_AGENT_ALLOW_PLAINTEXT', undefined);
  // Everything the library and the SDK print, captured for the scan.
  const capture = (...args: unknown[]): void => {
    logLines.push(args.map((arg) => (typeof arg === 'string' ? arg : safeInspect(arg))).join(' '));
  };
  setGlobalLogger({ debug: capture, info: capture, warn: capture, error: capture });
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation(capture);
  }
  // The Temporal runtime's logger writes to the streams directly.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: unknown) => {
      capture(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      return true;
    });
  }
});
afterAll(async () => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  setGlobalLogger(createConsoleLogger());
  await server?.close();
  await env?.teardown();
});

function safeInspect(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, v: unknown) =>
      v instanceof Error ? { name: v.name, message: v.message, stack: v.stack, cause: v.cause } : v,
    );
  } catch {
    return String(value);
  }
}

/** A client that reads the worker's encrypted payloads, configured from the same environment. */
function codecClient(taskQueue: string): AgentClient {
  const temporal = new Client({
    connection: env.connection,
    namespace: env.namespace,
    dataConverter: { payloadCodecs: [payloadCodecFromEnv()] },
  });
  return new AgentClient({ client: temporal, taskQueue });
}

/** An error shaped like axios's, carrying the request's headers, the raw request and the response's headers. */
function httpClientError(): Error {
  return Object.assign(new Error('Request failed with status code 401'), {
    name: 'AxiosError',
    code: 'ERR_BAD_REQUEST',
    status: 401,
    config: {
      url: 'https://crm.example.com/v1/contacts',
      headers: { Authorization: `Bearer ${CANARIES.toolAuthorization}` },
    },
    request: { _header: `GET /v1/contacts HTTP/1.1\r\nX-Api-Key: ${CANARIES.toolRawRequest}\r\n` },
    response: { status: 401, headers: { 'set-cookie': `session=${CANARIES.toolResponseCookie}` } },
    toJSON: () => ({ token: CANARIES.toolJson }),
  });
}

async function expectNoSecrets(workflowId: string, control: string): Promise<void> {
  const findings = await scanRunForSecrets(
    { client: env.client, workflowId, codec: payloadCodecFromEnv(), extra: { log: logLines } },
    ALL,
  );
  expect(findings).toEqual([]);
  // Control: the same scan finds what the run did record, so it looked inside the decoded payloads.
  const control_ = await scanRunForSecrets(
    { client: env.client, workflowId, codec: payloadCodecFromEnv() },
    { control },
  );
  expect(control_.length).toBeGreaterThan(0);
  expect(control_.every((f) => f.where.includes('(decoded)'))).toBe(true);
}

describe('secret canaries', () => {
  it('the scan finds a planted canary in text, in bytes and as key material', () => {
    const fields: [string, string | Uint8Array][] = [
      ['text', `a ${CANARIES.toolJson} b`],
      ['bytes', Buffer.concat([Buffer.from('x'), CODEC_KEY, Buffer.from('y')])],
      ['hex', `key=${OLD_CODEC_KEY.toString('hex')}`],
    ];
    expect(findCanaries(fields, ALL).map((f) => `${f.canary}@${f.where}`)).toEqual([
      'toolJson@text',
      'codecKey@bytes',
      'oldCodecKey@hex',
    ]);
  });

  it('a tool that throws an HTTP-client error leaks none of its headers, request or response', async () => {
    const crm = createTool({
      name: 'fetch_contacts',
      description: 'Reads contacts from the CRM.',
      parameters: z.object({}),
      execute: async () => {
        throw httpClientError();
      },
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'fetch_contacts', input: {}, toolCallId: 'c1' }] },
      { text: 'control-tool-answer: the CRM refused the request.' },
    ]);
    const agent = new Agent({ name: 'crm', instructions: '', model, tools: [crm] });
    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const run = await codecClient(taskQueue).start('crm', 'List my contacts', {
          workflow: { workflowExecutionTimeout: '2 minutes' },
        });
        const result = await run.result();
        expect(result.toolResults[0]!.output).toMatchObject({
          type: 'json',
          value: { error: true, name: 'AxiosError', code: 'ERR_BAD_REQUEST', status: 401 },
        });
        // What the model read, too.
        expect(findCanaries([['prompt', JSON.stringify(model.requests[1]!.prompt)]], ALL)).toEqual([]);
        await expectNoSecrets(run.id, 'control-tool-answer');
      },
      { providers: new ProviderRegistry() },
    );
  });

  it('a provider that echoes the API key in its error body and headers leaks it nowhere', async () => {
    const echo = (status: number) => (request: { headers: Record<string, unknown> }) => ({
      status,
      message: `Incorrect API key provided: ${String(request.headers.authorization)}`,
      headers: { 'x-echo-authorization': String(request.headers.authorization), 'retry-after-ms': '10' },
    });
    // A rate limit first (retried, so its failure is the activity's last failure for a while), then a refusal.
    server.enqueue(echo(429), echo(401));
    const agent = new Agent({ name: 'echoing', instructions: 'control-system-prompt', model: 'openai/gpt-4o-mini' });
    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const run = await codecClient(taskQueue).start('echoing', 'Hello', {
          workflow: { workflowExecutionTimeout: '2 minutes' },
        });
        const error = await run.result().then(
          () => undefined,
          (err: unknown) => err,
        );
        // RunFailedError's one line names the root cause; the chain below it is Temporal's, redacted the same way.
        expect(String((error as Error | undefined)?.message)).toContain(
          'Incorrect API key provided: Bearer [REDACTED]',
        );
        const chain: string[] = [];
        for (let at: unknown = error; at instanceof Error; at = at.cause) chain.push(String(at));
        expect(chain.join('\n')).toContain('Incorrect API key provided: Bearer [REDACTED]');
        expect(chain.join('\n')).not.toContain(CANARIES.providerKey);
        // The provider did receive the key: the canary was really in play.
        expect(server.chatRequests.at(-1)!.headers.authorization).toBe(`Bearer ${CANARIES.providerKey}`);
        await expectNoSecrets(run.id, 'control-system-prompt');
        // Control: the worker did log this failure, so the log scan had something to search.
        expect(logLines.some((line) => line.includes('Incorrect API key provided'))).toBe(true);
      },
      { providers: new ProviderRegistry() },
    );
  });
});
