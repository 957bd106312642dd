// The payload codec on a real Temporal dev server: a worker and a client sharing an encrypting codec run an agent
// whose tool output never appears in the recorded history, and clients without the key fail with a clear error.
import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import { AgentClient } from '../../src/client/agent-client.js';
import { createPayloadCodec, type DurableAgentPayloadCodec } from '../../src/codec/create-payload-codec.js';
import { PayloadCodecError } from '../../src/codec/payload-codec-error.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { createTool } from '../../src/tool/tool.js';
import { withAgentWorker } from '../support/agent-harness.js';
import { createTestEnv, testServer } from '../support/temporal.js';

let env: TestWorkflowEnvironment;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(async () => {
  await env?.teardown();
});

const SECRET = 'the vault combination is 31-41-59-26';

/** Every payload in a raw history: any object with a `data` byte array and a `metadata` map. */
/** The runs' own search attribute values seen by {@link payloadsIn} (not encoded by any codec, by design). */
const searchAttributes: Payload[] = [];

function payloadsIn(value: unknown, found: Payload[] = []): Payload[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return found;
  const record = value as Record<string, unknown>;
  // A local activity's marker also holds the SDK's own bookkeeping (sequence number, attempt, activity type,
  // times) in a `data` entry that no codec sees; its result is an ordinary, encoded payload.
  if (record.markerName === 'core_local_activity') {
    const details = record.details as Record<string, unknown> | undefined;
    return payloadsIn({ ...details, data: undefined }, found);
  }
  // A patch marker, and the TemporalChangeVersion search attribute the SDK indexes with it, hold only the patch id
  // (a constant of the workflow code, see workflows/patches.ts); search attributes are never encoded by a codec.
  if (record.markerName === 'core_patch') return found;
  if (
    record.indexedFields &&
    typeof record.indexedFields === 'object' &&
    'TemporalChangeVersion' in record.indexedFields
  ) {
    const { TemporalChangeVersion: versions, ...rest } = record.indexedFields as Record<string, Payload>;
    const ids = JSON.parse(text(versions?.data)) as string[];
    if (!ids.every((id) => id.startsWith('durable-agent.'))) found.push(versions!);
    return payloadsIn(rest, found);
  }
  // The runs' own search attributes (the inbox's: agent name, hashed user, conversation id, what the run waits for
  // and since when) are stored as they are, like every search attribute: kept apart, and checked for secrets below.
  if (record.indexedFields && typeof record.indexedFields === 'object') {
    for (const [key, payload] of Object.entries(record.indexedFields as Record<string, Payload>)) {
      if (key.startsWith('DurableAgent')) searchAttributes.push(payload);
      else found.push(payload);
    }
    return found;
  }
  if (record.data instanceof Uint8Array && typeof record.metadata === 'object' && record.metadata !== null) {
    found.push(record as Payload);
    return found;
  }
  for (const child of Object.values(record)) payloadsIn(child, found);
  return found;
}

const text = (bytes: Uint8Array | null | undefined): string => Buffer.from(bytes ?? []).toString('utf8');

function codecClient(codec: DurableAgentPayloadCodec): Client {
  return new Client({
    connection: env.connection,
    namespace: env.namespace,
    dataConverter: { payloadCodecs: [codec] },
  });
}

describe('payload codec', () => {
  it('runs an agent with encrypted payloads that only holders of the key can read', async () => {
    const codec = createPayloadCodec({ encryption: { keyId: 'test-key', key: randomBytes(32) } });
    const vault = createTool({
      name: 'open_vault',
      description: 'Reads the vault combination.',
      parameters: z.object({ vault: z.string() }),
      execute: async ({ vault }) => `${SECRET} (${vault})`,
    });
    const model = new ScriptedLanguageModel([
      { toolCalls: [{ toolName: 'open_vault', input: { vault: 'main' }, toolCallId: 'c1' }] },
      { text: 'I read the vault.' },
    ]);
    const agent = new Agent({ name: 'vault-keeper', instructions: 'Be brief.', model, tools: [vault] });

    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const client = new AgentClient({ client: codecClient(codec), taskQueue });
        const run = await client.start('vault-keeper', 'What is the combination?', {
          workflow: { workflowExecutionTimeout: '2 minutes' },
        });
        const result = await run.result();
        expect(result.text).toBe('I read the vault.');
        expect(result.toolResults).toEqual([
          { toolCallId: 'c1', toolName: 'open_vault', output: { type: 'text', value: `${SECRET} (main)` } },
        ]);

        // The history as the server stores it, read by a client without any codec.
        const history = await env.client.workflow.getHandle(run.id).fetchHistory();
        const payloads = payloadsIn(history);
        expect(payloads.length).toBeGreaterThan(5);
        for (const payload of payloads) {
          expect(text(payload.metadata?.encoding)).toBe('binary/encrypted');
          expect(text(payload.metadata?.['encryption-key-id'])).toBe('test-key');
        }
        const raw = Buffer.concat(
          payloads.flatMap((p) => [...Object.values(p.metadata ?? {}), p.data ?? new Uint8Array(0)]),
        );
        expect(raw.includes(SECRET)).toBe(false);
        expect(raw.includes('open_vault')).toBe(false);
        const indexed = Buffer.concat(searchAttributes.map((p) => p.data ?? new Uint8Array(0)));
        expect(indexed.includes(SECRET)).toBe(false);
        expect(indexed.includes('open_vault')).toBe(false);
        expect(raw.includes('json/plain')).toBe(false);
        // Control: the same payloads decoded with the key do hold the secret, so the search above looked in them.
        const decoded = await codec.decode(payloads);
        expect(decoded.some((payload) => text(payload.data).includes(SECRET))).toBe(true);

        // A client with other keys: the error names the missing key id.
        const otherKey = createPayloadCodec({ encryption: { keyId: 'other-key', key: randomBytes(32) } });
        const wrongKeyError = await codecClient(otherKey)
          .workflow.getHandle(run.id)
          .result()
          .then(
            () => undefined,
            (err: unknown) => err,
          );
        expect(PayloadCodecError.isInstance(wrongKeyError)).toBe(true);
        expect(wrongKeyError).toMatchObject({ code: 'Codec.UnknownKeyId', keyId: 'test-key' });
        expect(String(wrongKeyError)).toContain(`key id 'test-key'`);
        expect(String(wrongKeyError)).toContain(`only has keys 'other-key'`);

        // AgentClient.connect with no key in its environment: the default codec explains what to configure.
        vi.stubEnv('DURABLE_AGENT_ENCRYPTION_KEY', undefined);
        vi.stubEnv('DURABLE_AGENT_COMPRESSION', undefined);
        const unkeyed = await AgentClient.connect({ ...testServer(), taskQueue });
        vi.unstubAllEnvs();
        try {
          await expect(unkeyed.getRun(run.id).result()).rejects.toThrow(
            /key id 'test-key'.*no encryption key configured.*DURABLE_AGENT_ENCRYPTION_KEY/s,
          );
        } finally {
          await unkeyed.temporal.connection.close();
        }
      },
      { payloadCodec: codec },
    );
  });

  it('a worker without the key fails its workflow tasks with an error naming the key id', async () => {
    const codec = createPayloadCodec({ encryption: { keyId: 'client-only-key', key: randomBytes(32) } });
    const agent = new Agent({ name: 'unreachable', instructions: 'Be brief.', model: new ScriptedLanguageModel([]) });
    await withAgentWorker(
      env,
      [agent],
      async ({ taskQueue }) => {
        const client = new AgentClient({ client: codecClient(codec), taskQueue });
        const run = await client.start('unreachable', 'Hello', { workflow: { workflowExecutionTimeout: '1 minute' } });
        let failure: string | undefined;
        for (let attempt = 0; attempt < 100 && failure === undefined; attempt++) {
          const history = await run.handle.fetchHistory();
          failure =
            history.events?.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure
              ?.message ?? undefined;
          if (failure === undefined) await new Promise((r) => setTimeout(r, 100));
        }
        await run.handle.terminate('test done');
        expect(failure).toMatch(/key id 'client-only-key'.*no encryption key configured/s);
      },
      { payloadCodec: createPayloadCodec({ compression: 'none' }) },
    );
  });

  it('refuses a payloadCodec next to a prebuilt Temporal client, which would silently ignore it', () => {
    expect(() => new AgentClient({ client: env.client, payloadCodec: createPayloadCodec() })).toThrow(
      /dataConverter: \{ payloadCodecs: \[codec\] \}/,
    );
  });
});
