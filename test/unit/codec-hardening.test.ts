// The codec against hostile and legacy input: bounded decompression, plaintext refused once a key encrypts,
// ciphertexts bound to their namespace and workflow, the SDK's own Payload framing (byte-compatible with what
// earlier versions encrypted), and what a worker's workflow task receives instead of a broken payload.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { asyncLocalStorage } from '@temporalio/activity';
import type { Context } from '@temporalio/activity';
import { defaultPayloadConverter, type Payload, type SerializationContext } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_DECOMPRESSED_BYTES } from '../../src/codec/constants.js';
import { createPayloadCodec, type DurableAgentPayloadCodec } from '../../src/codec/create-payload-codec.js';
import { deserializePayload, serializePayload } from '../../src/codec/payload-bytes.js';
import { PayloadCodecError } from '../../src/codec/payload-codec-error.js';
import { payloadCodecFromEnv } from '../../src/codec/payload-codec-from-env.js';
import { refusedPayloadOf } from '../../src/protocol/refused-payload.js';
import { workerPayloadCodec } from '../../src/codec/worker-payload-codec.js';
import { createConsoleLogger, setGlobalLogger } from '../../src/logger.js';

const KEY = randomBytes(32);
const toPayload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const fromPayload = (payload: Payload): unknown => defaultPayloadConverter.fromPayload(payload);
const meta = (payload: Payload, key: string): string | undefined => {
  const value = payload.metadata?.[key];
  return value ? Buffer.from(value).toString('utf8') : undefined;
};
const workflowContext = (workflowId: string, namespace = 'default'): SerializationContext => ({
  type: 'workflow',
  namespace,
  workflowId,
});

async function decodeError(
  codec: Pick<DurableAgentPayloadCodec, 'decode'>,
  payload: Payload,
  context?: SerializationContext,
): Promise<PayloadCodecError> {
  const error: unknown = await codec.decode([payload], context).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!PayloadCodecError.isInstance(error)) throw new Error(`expected a PayloadCodecError, got ${String(error)}`);
  return error;
}

/**
 * A `binary/gzip` payload whose data inflates to `inflatedMiB` MiB of zeros: concatenated gzip members of 1 MiB each
 * (gunzip reads every member), about 1 KiB apiece — 2,048 of them are a 2 MB payload that inflates to 2 GiB.
 */
function gzipBomb(inflatedMiB: number): Payload {
  const member = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  return {
    metadata: { encoding: Buffer.from('binary/gzip') },
    data: Buffer.concat(Array.from({ length: inflatedMiB }, () => member)),
  };
}

interface FixturePayload {
  metadata: Record<string, string>;
  data: string;
}
const fixture = JSON.parse(readFileSync(new URL('../fixtures/codec/v1-payloads.json', import.meta.url), 'utf8')) as {
  key: string;
  encrypted: { value: unknown; payload: FixturePayload }[];
  gzipOnly: { value: unknown; payload: FixturePayload }[];
  serialized: { value: unknown; bytes: string }[];
};
const fromFixture = (p: FixturePayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data, 'base64'),
});

describe('payload framing and earlier ciphertexts', () => {
  it("frames payloads with the SDK's Payload encoder, byte for byte as the hand-written framing did", () => {
    for (const { value, bytes } of fixture.serialized) {
      const payload = toPayload(value);
      expect(Buffer.from(serializePayload(payload)).toString('base64')).toBe(bytes);
      expect(fromPayload(deserializePayload(Buffer.from(bytes, 'base64')))).toEqual(value);
    }
  });

  it('still decrypts and decompresses payloads written before payloads were bound to their context', async () => {
    const codec = createPayloadCodec({ encryption: { keyId: 'fixture-v1', key: fixture.key } });
    for (const { value, payload } of fixture.encrypted) {
      expect(meta(fromFixture(payload), 'encryption-version')).toBeUndefined();
      // Format 1 carries no binding: it decodes in whatever workflow it is recorded in.
      const [decoded] = await codec.decode([fromFixture(payload)], workflowContext('any-run'));
      expect(fromPayload(decoded!)).toEqual(value);
    }
    const reader = createPayloadCodec();
    for (const { value, payload } of fixture.gzipOnly) {
      expect(fromPayload((await reader.decode([fromFixture(payload)]))[0]!)).toEqual(value);
    }
  });
});

describe('bounded decompression', () => {
  it('refuses a 2 MB payload that inflates to 2 GiB after at most 16 MiB of output', async () => {
    const bomb = gzipBomb(2048);
    expect(bomb.data!.length).toBeLessThan(2_500_000);
    const before = process.memoryUsage().rss;
    const error = await decodeError(createPayloadCodec(), bomb);
    const grown = process.memoryUsage().rss - before;
    expect(error.code).toBe('Codec.DecompressedTooLarge');
    expect(error.message).toContain(`inflates past ${MAX_DECOMPRESSED_BYTES} bytes`);
    expect(error.message).toContain('decompression bomb');
    // Inflating it would take 2 GiB; the bound holds memory to the limit plus zlib's buffers.
    expect(grown).toBeLessThan(256 * 1024 * 1024);
  });

  it('reads back everything it writes: payloads too large to inflate safely are left uncompressed', async () => {
    const codec = createPayloadCodec();
    const justUnder = toPayload('x'.repeat(MAX_DECOMPRESSED_BYTES - 100));
    const over = toPayload('x'.repeat(MAX_DECOMPRESSED_BYTES + 10));
    const [small, large] = await codec.encode([justUnder, over]);
    expect(meta(small!, 'encoding')).toBe('binary/gzip');
    expect(meta(large!, 'encoding')).toBe('json/plain');
    const [a, b] = await codec.decode([small!, large!]);
    expect((fromPayload(a!) as string).length).toBe(MAX_DECOMPRESSED_BYTES - 100);
    expect((fromPayload(b!) as string).length).toBe(MAX_DECOMPRESSED_BYTES + 10);
  });
});

describe('plaintext with a key', () => {
  const strict = createPayloadCodec({ encryption: { keyId: 'k', key: KEY } });

  it('refuses unencrypted payloads once a key encrypts, saying how to migrate and when not to', async () => {
    const [gzipped] = await createPayloadCodec({ compressionThreshold: 0 }).encode([toPayload('x'.repeat(2000))]);
    const plaintexts: Payload[] = [
      toPayload({ toolCallId: 'call_1', approved: true }),
      toPayload(undefined),
      gzipped!,
      { data: Buffer.from('no metadata') },
    ];
    for (const payload of plaintexts) {
      const error = await decodeError(strict, payload, workflowContext('wf'));
      expect(error.code).toBe('Codec.PlaintextRefused');
      expect(error.message).toContain('allowPlaintext: true (DURABLE_AGENT_ALLOW_PLAINTEXT=true)');
      expect(error.message).toContain('A payload nobody should have sent (a forged signal) is applied');
    }
    // A payload no configuration could read is refused as such, not as plaintext.
    expect((await decodeError(strict, gzipBomb(64))).code).toBe('Codec.DecompressedTooLarge');
    expect(strict.allowPlaintext).toBe(false);
  });

  it('accepts them with allowPlaintext, and always when it does not encrypt (it writes plaintext itself)', async () => {
    const plain = toPayload({ toolCallId: 'call_1', approved: true });
    const migrating = createPayloadCodec({ encryption: { keyId: 'k', key: KEY }, allowPlaintext: true });
    const decryptOnly = createPayloadCodec({ encryption: { keys: { k: KEY }, currentKeyId: null } });
    for (const codec of [migrating, decryptOnly, createPayloadCodec()]) {
      expect(codec.allowPlaintext).toBe(true);
      expect((await codec.decode([plain]))[0]).toBe(plain);
    }
    // Encrypted payloads still decode everywhere a key is known.
    const [encrypted] = await strict.encode([plain]);
    expect(fromPayload((await decryptOnly.decode([encrypted!]))[0]!)).toEqual({ toolCallId: 'call_1', approved: true });
  });

  it('reads DURABLE_AGENT_ALLOW_PLAINTEXT', () => {
    const key = KEY.toString('base64');
    expect(payloadCodecFromEnv({ DURABLE_AGENT_ENCRYPTION_KEY: key }).allowPlaintext).toBe(false);
    for (const value of ['true', 'TRUE', '1', 'yes']) {
      const codec = payloadCodecFromEnv({ DURABLE_AGENT_ENCRYPTION_KEY: key, DURABLE_AGENT_ALLOW_PLAINTEXT: value });
      expect(codec.allowPlaintext).toBe(true);
    }
    for (const value of ['false', '0', 'no', ' ']) {
      const codec = payloadCodecFromEnv({ DURABLE_AGENT_ENCRYPTION_KEY: key, DURABLE_AGENT_ALLOW_PLAINTEXT: value });
      expect(codec.allowPlaintext).toBe(false);
    }
    expect(() =>
      payloadCodecFromEnv({ DURABLE_AGENT_ENCRYPTION_KEY: key, DURABLE_AGENT_ALLOW_PLAINTEXT: 'sometimes' }),
    ).toThrow("DURABLE_AGENT_ALLOW_PLAINTEXT must be 'true' or 'false', not 'sometimes'.");
    expect(() => createPayloadCodec({ allowPlaintext: 'yes' as unknown as boolean })).toThrow(
      'allowPlaintext must be true or false.',
    );
  });
});

describe('ciphertexts bound to their context', () => {
  const codec = createPayloadCodec({ encryption: { keyId: 'k', key: KEY } });
  const approval = toPayload({ toolCallId: 'call_1', approved: true });

  it('records the namespace and workflow id and decodes where it was written for', async () => {
    const [encoded] = await codec.encode([approval], workflowContext('run-a'));
    expect(meta(encoded!, 'encryption-version')).toBe('2');
    expect(meta(encoded!, 'encryption-namespace')).toBe('default');
    expect(meta(encoded!, 'encryption-workflow-id')).toBe('run-a');
    expect(fromPayload((await codec.decode([encoded!], workflowContext('run-a')))[0]!)).toEqual({
      toolCallId: 'call_1',
      approved: true,
    });
    // The workflow of run-a reads the results of the activities it scheduled: same workflow id.
    const activity: SerializationContext = {
      type: 'activity',
      namespace: 'default',
      workflowId: 'run-a',
      isLocal: false,
    };
    const [result] = await codec.encode([approval], activity);
    expect(await codec.decode([result!], workflowContext('run-a'))).toHaveLength(1);
    // A codec server or a script reading a fetched history has no context: it can still decrypt.
    expect(await codec.decode([encoded!])).toHaveLength(1);
  });

  it('refuses a payload copied into another workflow or namespace, naming both', async () => {
    const [encoded] = await codec.encode([approval], workflowContext('run-a'));
    const other = await decodeError(codec, encoded!, workflowContext('run-b'));
    expect(other.code).toBe('Codec.ContextMismatch');
    expect(other.message).toContain(`bound to workflow 'run-a' that was delivered to workflow 'run-b'`);
    const namespace = await decodeError(codec, encoded!, workflowContext('run-a', 'prod'));
    expect(namespace.code).toBe('Codec.ContextMismatch');
    expect(namespace.message).toContain(`namespace 'default'`);
  });

  it('authenticates its metadata: editing the binding, the version or the key id fails', async () => {
    const [encoded] = await codec.encode([approval], workflowContext('run-a'));
    const edit = (changes: Record<string, string | undefined>): Payload => {
      const metadata = { ...encoded!.metadata };
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) delete metadata[key];
        else metadata[key] = Buffer.from(value);
      }
      return { metadata, data: encoded!.data! };
    };
    const ring = createPayloadCodec({ encryption: { keys: { k: KEY, alias: KEY }, currentKeyId: 'k' } });
    // Each edit would make the payload acceptable in run-b, or look older than it is.
    const edits = [
      edit({ 'encryption-workflow-id': 'run-b' }),
      edit({ 'encryption-workflow-id': 'run-b-2025-01-01T09:00:00Z' }),
      edit({ 'encryption-workflow-id': undefined }),
      edit({ 'encryption-namespace': undefined, 'encryption-workflow-id': undefined }),
      edit({ 'encryption-version': undefined, 'encryption-workflow-id': undefined }),
      edit({ 'encryption-key-id': 'alias', 'encryption-workflow-id': 'run-b' }),
    ];
    for (const payload of edits) {
      expect((await decodeError(ring, payload, workflowContext('run-b-2025-01-01T09:00:00Z'))).code).toBe(
        'Codec.DecryptionFailed',
      );
    }
  });

  it('accepts the timestamped workflow ids a schedule starts, and nothing else that merely shares a prefix', async () => {
    const [encoded] = await codec.encode([approval], workflowContext('daily-report'));
    for (const id of ['daily-report-2025-01-01T09:00:00Z', 'daily-report-2025-01-01T09:00:00.5+02:00']) {
      expect(await codec.decode([encoded!], workflowContext(id))).toHaveLength(1);
    }
    for (const id of ['daily-report-evil', 'daily-report2025-01-01T09:00:00Z', 'x-daily-report-2025-01-01T09:00:00Z']) {
      expect((await decodeError(codec, encoded!, workflowContext(id))).code).toBe('Codec.ContextMismatch');
    }
  });

  it('binds nothing without a context, and says when a payload is from a newer format', async () => {
    const [unbound] = await codec.encode([approval]);
    expect(meta(unbound!, 'encryption-workflow-id')).toBeUndefined();
    expect(await codec.decode([unbound!], workflowContext('anywhere'))).toHaveLength(1);
    const future = { ...unbound!, metadata: { ...unbound!.metadata, 'encryption-version': Buffer.from('3') } };
    const error = await decodeError(codec, future);
    expect(error.code).toBe('Codec.UnsupportedVersion');
    expect(error.message).toContain('upgrade durable-agent');
  });
});

describe('workerPayloadCodec', () => {
  afterEach(() => setGlobalLogger(createConsoleLogger()));
  const codec = createPayloadCodec({ encryption: { keyId: 'k', key: KEY } });
  const worker = workerPayloadCodec([codec]);

  it('gives a workflow task a stand-in for a structurally broken payload, and logs why', async () => {
    const warnings: unknown[][] = [];
    setGlobalLogger({ ...createConsoleLogger('error'), warn: (...args: unknown[]) => warnings.push(args) });
    const [good] = await codec.encode([toPayload('fine')], workflowContext('wf'));
    const malformed: Payload = { metadata: { encoding: Buffer.from('binary/gzip') }, data: Buffer.from('junk') };
    const decoded = await worker.decode([good!, gzipBomb(64), malformed], workflowContext('wf'));
    expect(fromPayload(decoded[0]!)).toBe('fine');
    expect(refusedPayloadOf(fromPayload(decoded[1]!))).toMatchObject({ code: 'Codec.DecompressedTooLarge' });
    expect(refusedPayloadOf(fromPayload(decoded[2]!))).toMatchObject({ code: 'Codec.MalformedPayload' });
    expect(warnings).toHaveLength(2);
    expect(String(warnings[0]![0])).toContain(`Refused a payload sent to workflow 'wf'`);
    expect(refusedPayloadOf({ toolCallId: 'x' })).toBeUndefined();
  });

  it('throws for refusals another worker could decode, outside workflow tasks, and inside activities', async () => {
    const plaintext = await decodeError(worker, toPayload('plain'), workflowContext('wf'));
    expect(plaintext.code).toBe('Codec.PlaintextRefused');
    const [elsewhere] = await codec.encode([toPayload('x')], workflowContext('other'));
    expect((await decodeError(worker, elsewhere!, workflowContext('wf'))).code).toBe('Codec.ContextMismatch');
    const activity: SerializationContext = { type: 'activity', namespace: 'default', workflowId: 'wf', isLocal: false };
    expect((await decodeError(worker, gzipBomb(64), activity)).code).toBe('Codec.DecompressedTooLarge');
    // An activity reading a run's transcript through its client decodes in a workflow context.
    const inActivity = await asyncLocalStorage.run({} as Context, () =>
      decodeError(worker, gzipBomb(64), workflowContext('wf')),
    );
    expect(inActivity.code).toBe('Codec.DecompressedTooLarge');
  });

  it('encodes and decodes through the whole chain in order', async () => {
    const gzip = createPayloadCodec({ compressionThreshold: 0 });
    const chained = workerPayloadCodec([gzip, codec]);
    const [encoded] = await chained.encode([toPayload('y'.repeat(5000))], workflowContext('wf'));
    expect(meta(encoded!, 'encoding')).toBe('binary/encrypted');
    expect(fromPayload((await chained.decode([encoded!], workflowContext('wf')))[0]!)).toBe('y'.repeat(5000));
  });
});
