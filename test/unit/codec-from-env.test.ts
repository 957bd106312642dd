// The codec configured by environment variables, and how workers and clients pick their codec.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload, type PayloadCodec } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { createPayloadCodec } from '../../src/codec/create-payload-codec.js';
import { payloadCodecFromEnv } from '../../src/codec/payload-codec-from-env.js';
import { PayloadCodecError } from '../../src/codec/payload-codec-error.js';
import { withPayloadCodec } from '../../src/codec/with-payload-codec.js';

const KEY_1 = randomBytes(32);
const KEY_2 = randomBytes(32);
const large = defaultPayloadConverter.toPayload({ text: 'compress me '.repeat(1000) });
const value = (payload: Payload): unknown => defaultPayloadConverter.fromPayload(payload);
const encoding = (codec: PayloadCodec) => async (): Promise<string | undefined> => {
  const [out] = await codec.encode([large]);
  return out?.metadata?.encoding ? Buffer.from(out.metadata.encoding).toString() : undefined;
};

describe('payloadCodecFromEnv', () => {
  it('with nothing set encodes nothing, but still reads gzip and explains encrypted payloads', async () => {
    const codec = payloadCodecFromEnv({ DURABLE_AGENT_ENCRYPTION_KEY: '', DURABLE_AGENT_COMPRESSION: ' ' });
    expect(codec.compression).toBe('none');
    expect(codec.encryptionKeyId).toBeUndefined();
    expect((await codec.encode([large]))[0]).toBe(large);

    const [gzipped] = await createPayloadCodec().encode([large]);
    expect(value((await codec.decode([gzipped!]))[0]!)).toEqual(value(large));
    const [encrypted] = await createPayloadCodec({ encryption: { keyId: 'ops', key: KEY_1 } }).encode([large]);
    await expect(codec.decode([encrypted!])).rejects.toThrow(/key id 'ops'.*no encryption key configured/);
  });

  it('encrypts and compresses with DURABLE_AGENT_ENCRYPTION_KEY, under key id "default" unless one is given', async () => {
    const codec = payloadCodecFromEnv({ DURABLE_AGENT_ENCRYPTION_KEY: KEY_1.toString('base64') });
    expect(codec.compression).toBe('gzip');
    expect(codec.encryptionKeyId).toBe('default');
    expect(await encoding(codec)()).toBe('binary/encrypted');

    const named = payloadCodecFromEnv({
      DURABLE_AGENT_ENCRYPTION_KEY: KEY_1.toString('hex'),
      DURABLE_AGENT_ENCRYPTION_KEY_ID: 'prod-1',
      DURABLE_AGENT_COMPRESSION: 'none',
    });
    expect(named.encryptionKeyId).toBe('prod-1');
    expect(named.compression).toBe('none');
    const [encoded] = await named.encode([large]);
    const same = createPayloadCodec({ encryption: { keyId: 'prod-1', key: KEY_1 } });
    expect(value((await same.decode([encoded!]))[0]!)).toEqual(value(large));
  });

  it('compresses without encrypting with DURABLE_AGENT_COMPRESSION=gzip', async () => {
    const codec = payloadCodecFromEnv({ DURABLE_AGENT_COMPRESSION: 'GZIP' });
    expect(await encoding(codec)()).toBe('binary/gzip');
  });

  it('keeps decryption-only keys: older keys after a rotation, the next key while it rolls out', async () => {
    const [old] = await createPayloadCodec({ encryption: { keyId: 'k1', key: KEY_1 } }).encode([large]);
    const codec = payloadCodecFromEnv({
      DURABLE_AGENT_ENCRYPTION_KEY: KEY_2.toString('base64'),
      DURABLE_AGENT_ENCRYPTION_KEY_ID: 'k2',
      // The current key listed again (as happens mid-rotation) is fine.
      DURABLE_AGENT_DECRYPTION_KEYS: `k1:${KEY_1.toString('base64')}, k2:${KEY_2.toString('hex')}`,
    });
    expect(codec.encryptionKeyId).toBe('k2');
    expect(codec.knownKeyIds.sort()).toEqual(['k1', 'k2']);
    expect(value((await codec.decode([old!]))[0]!)).toEqual(value(large));

    // Decryption keys alone: reads encrypted payloads, writes plain ones.
    const rollingOut = payloadCodecFromEnv({ DURABLE_AGENT_DECRYPTION_KEYS: `k1:${KEY_1.toString('hex')}` });
    expect(rollingOut.encryptionKeyId).toBeUndefined();
    expect((await rollingOut.encode([large]))[0]).toBe(large);
    expect(value((await rollingOut.decode([old!]))[0]!)).toEqual(value(large));
  });

  it('refuses one key id listed twice with different keys (the first key was silently dropped)', () => {
    expect(() =>
      payloadCodecFromEnv({
        DURABLE_AGENT_DECRYPTION_KEYS: `old:${KEY_1.toString('base64')},old:${KEY_2.toString('base64')}`,
      }),
    ).toThrow(/lists key id 'old' twice with different keys/);
    // The same key twice (in another encoding) is harmless.
    expect(
      payloadCodecFromEnv({
        DURABLE_AGENT_DECRYPTION_KEYS: `old:${KEY_1.toString('base64')},old:${KEY_1.toString('hex')}`,
      }).knownKeyIds,
    ).toEqual(['old']);
  });

  it('refuses invalid settings, naming the variable', () => {
    expect(() => payloadCodecFromEnv({ DURABLE_AGENT_COMPRESSION: 'zstd' })).toThrow(/DURABLE_AGENT_COMPRESSION/);
    expect(() => payloadCodecFromEnv({ DURABLE_AGENT_DECRYPTION_KEYS: 'nocolon' })).toThrow(/<key id>:<key>/);
    expect(() => payloadCodecFromEnv({ DURABLE_AGENT_DECRYPTION_KEYS: 'k1:abc' })).toThrow(
      /Encryption key 'k1' must be 32 bytes/,
    );
    expect(() => payloadCodecFromEnv({ DURABLE_AGENT_ENCRYPTION_KEY: 'c2hvcnQ=' })).toThrow(
      /Encryption key 'default' must be 32 bytes/,
    );
    expect(() =>
      payloadCodecFromEnv({
        DURABLE_AGENT_ENCRYPTION_KEY: KEY_1.toString('hex'),
        DURABLE_AGENT_DECRYPTION_KEYS: `default:${KEY_2.toString('hex')}`,
      }),
    ).toThrow(/a key id must always mean the same key/);
  });
});

describe('withPayloadCodec', () => {
  const codec = createPayloadCodec();

  it('uses the given codec, or the environment’s, or none with false', () => {
    expect(withPayloadCodec(undefined, codec)?.payloadCodecs).toEqual([codec]);
    const fromEnv = withPayloadCodec(undefined, undefined, { DURABLE_AGENT_COMPRESSION: 'gzip' })?.payloadCodecs;
    expect(fromEnv).toHaveLength(1);
    expect(fromEnv![0]).toMatchObject({ compression: 'gzip' });
    expect(withPayloadCodec(undefined, false)).toBeUndefined();
  });

  it('keeps codecs configured on an explicit data converter, and refuses two places at once', () => {
    const other: PayloadCodec = { encode: async (p) => p, decode: async (p) => p };
    const converter = { payloadCodecs: [other], payloadConverterPath: '/x.js' };
    expect(withPayloadCodec(converter, undefined)).toBe(converter);
    expect(withPayloadCodec({ payloadConverterPath: '/x.js' }, codec)).toEqual({
      payloadConverterPath: '/x.js',
      payloadCodecs: [codec],
    });
    let error: unknown;
    try {
      withPayloadCodec(converter, codec);
    } catch (err) {
      error = err;
    }
    expect(PayloadCodecError.isInstance(error) && error.message).toContain('configure payload codecs in one place');
  });
});
