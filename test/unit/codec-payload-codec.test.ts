// The payload codec on its own: round trips, when it compresses, what encryption hides, the errors a missing or
// wrong key gives, tamper detection, and key rotation.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { createPayloadCodec, type DurableAgentPayloadCodec } from '../../src/codec/create-payload-codec.js';
import { serializePayload } from '../../src/codec/payload-bytes.js';
import { PayloadCodecError } from '../../src/codec/payload-codec-error.js';

const KEY_1 = randomBytes(32);
const KEY_2 = randomBytes(32);
const SECRET = 'the launch code is 0000';

const toPayload = (value: unknown): Payload => defaultPayloadConverter.toPayload(value);
const fromPayload = (payload: Payload): unknown => defaultPayloadConverter.fromPayload(payload);
const meta = (payload: Payload, key: string): string | undefined => {
  const value = payload.metadata?.[key];
  return value ? Buffer.from(value).toString('utf8') : undefined;
};
const size = (payload: Payload): number => serializePayload(payload).length;
/** A JSON payload of about `bytes` bytes that gzip shrinks a lot. */
const compressible = (bytes: number): Payload => toPayload({ text: `${SECRET} `.repeat(Math.ceil(bytes / 24)) });

async function roundTrip(codec: DurableAgentPayloadCodec, payloads: Payload[]): Promise<Payload[]> {
  return await codec.decode(await codec.encode(payloads));
}

async function decodeError(codec: DurableAgentPayloadCodec, payload: Payload): Promise<PayloadCodecError> {
  const error: unknown = await codec.decode([payload]).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!PayloadCodecError.isInstance(error)) throw new Error(`expected a PayloadCodecError, got ${String(error)}`);
  return error;
}

describe('createPayloadCodec', () => {
  const values: unknown[] = [
    'short',
    { nested: { list: [1, 2, 3], flag: true } },
    null,
    undefined,
    new Uint8Array([0, 1, 2, 255]),
    { long: 'x'.repeat(5000) },
  ];

  it.each([
    ['compression only', {}],
    ['encryption only', { compression: 'none', encryption: { keyId: 'k1', key: KEY_1 } }],
    ['compression and encryption', { encryption: { keyId: 'k1', key: KEY_1 } }],
  ] as const)('round-trips every kind of payload (%s)', async (_name, options) => {
    const codec = createPayloadCodec(options);
    const payloads = values.map(toPayload);
    const decoded = await roundTrip(codec, payloads);
    expect(decoded.map(fromPayload)).toEqual(values);
    // The inner payload comes back whole, its own metadata included.
    decoded.forEach((payload, i) => expect(meta(payload, 'encoding')).toBe(meta(payloads[i]!, 'encoding')));
  });

  it('compresses only payloads over the threshold that gzip makes smaller', async () => {
    const codec = createPayloadCodec();
    const small = toPayload({ text: 'a'.repeat(500) });
    const large = compressible(20_000);
    const incompressible = toPayload(randomBytes(4096));
    const [smallOut, largeOut, randomOut] = await codec.encode([small, large, incompressible]);

    expect(smallOut).toBe(small);
    expect(randomOut).toBe(incompressible);
    expect(meta(largeOut!, 'encoding')).toBe('binary/gzip');
    expect(size(largeOut!)).toBeLessThan(size(large) / 10);
    expect(fromPayload((await codec.decode([largeOut!]))[0]!)).toEqual(fromPayload(large));
  });

  it('honours compression: none and a custom threshold', async () => {
    const payload = toPayload({ text: 'a'.repeat(500) });
    expect((await createPayloadCodec({ compression: 'none' }).encode([compressible(20_000)]))[0]).toEqual(
      compressible(20_000),
    );
    const [out] = await createPayloadCodec({ compressionThreshold: 100 }).encode([payload]);
    expect(meta(out!, 'encoding')).toBe('binary/gzip');
  });

  it('encryption hides the plaintext and its encoding, with a fresh IV per payload', async () => {
    const codec = createPayloadCodec({ compression: 'none', encryption: { keyId: 'k1', key: KEY_1 } });
    const payload = toPayload({ note: SECRET });
    const [first, second] = await codec.encode([payload, payload]);

    for (const encoded of [first!, second!]) {
      expect(meta(encoded, 'encoding')).toBe('binary/encrypted');
      expect(meta(encoded, 'encryption-key-id')).toBe('k1');
      // Without a serialization context there is no namespace or workflow to bind to (see codec-hardening.test.ts).
      expect(Object.keys(encoded.metadata ?? {}).sort()).toEqual([
        'encoding',
        'encryption-key-id',
        'encryption-version',
      ]);
      const bytes = Buffer.from(serializePayload(encoded));
      expect(bytes.includes(SECRET)).toBe(false);
      expect(bytes.includes('json/plain')).toBe(false);
    }
    expect(Buffer.from(first!.data!).equals(Buffer.from(second!.data!))).toBe(false);
    expect((await codec.decode([first!, second!])).map(fromPayload)).toEqual([{ note: SECRET }, { note: SECRET }]);
  });

  it('compresses before encrypting, so large payloads stay small when encrypted', async () => {
    const codec = createPayloadCodec({ encryption: { keyId: 'k1', key: KEY_1 } });
    const large = compressible(20_000);
    const [encoded] = await codec.encode([large]);
    expect(meta(encoded!, 'encoding')).toBe('binary/encrypted');
    expect(size(encoded!)).toBeLessThan(size(large) / 10);
    expect(fromPayload((await codec.decode([encoded!]))[0]!)).toEqual(fromPayload(large));
  });

  it('leaves payloads it did not encode untouched on decode, when it accepts plaintext', async () => {
    const codec = createPayloadCodec({ encryption: { keyId: 'k1', key: KEY_1 }, allowPlaintext: true });
    const foreign: Payload[] = [
      toPayload({ plain: true }),
      toPayload(null),
      { metadata: { encoding: Buffer.from('binary/zlib') }, data: Buffer.from([1, 2, 3]) },
      { data: Buffer.from('no metadata') },
    ];
    const decoded = await codec.decode(foreign);
    decoded.forEach((payload, i) => expect(payload).toBe(foreign[i]));
  });

  it('says which key id is missing and how to configure it, when it has no key at all', async () => {
    const [encoded] = await createPayloadCodec({ encryption: { keyId: 'prod-2024', key: KEY_1 } }).encode([
      toPayload(SECRET),
    ]);
    const error = await decodeError(createPayloadCodec(), encoded!);
    expect(error.code).toBe('Codec.UnknownKeyId');
    expect(error.keyId).toBe('prod-2024');
    expect(error.message).toContain(`key id 'prod-2024'`);
    expect(error.message).toContain('no encryption key configured');
    expect(error.message).toContain('DURABLE_AGENT_ENCRYPTION_KEY');
    expect(error.message).toContain('payloadCodec');
  });

  it('says which key id is missing and which it has, when it has other keys', async () => {
    const [encoded] = await createPayloadCodec({ encryption: { keyId: 'old', key: KEY_1 } }).encode([
      toPayload(SECRET),
    ]);
    const error = await decodeError(createPayloadCodec({ encryption: { keyId: 'new', key: KEY_2 } }), encoded!);
    expect(error.code).toBe('Codec.UnknownKeyId');
    expect(error.message).toContain(`key id 'old'`);
    expect(error.message).toContain(`only has keys 'new'`);
    expect(error.message).toContain('DURABLE_AGENT_DECRYPTION_KEYS');
  });

  it('detects a different key under the same id, and never prints key material', async () => {
    const [encoded] = await createPayloadCodec({ encryption: { keyId: 'k1', key: KEY_1 } }).encode([toPayload(SECRET)]);
    const error = await decodeError(createPayloadCodec({ encryption: { keyId: 'k1', key: KEY_2 } }), encoded!);
    expect(error.code).toBe('Codec.DecryptionFailed');
    expect(error.message).toContain(`key id 'k1' failed authentication`);
    for (const key of [KEY_1, KEY_2]) {
      expect(error.message).not.toContain(key.toString('base64'));
      expect(error.message).not.toContain(key.toString('hex'));
    }
  });

  it('detects tampering with the IV, the ciphertext, the tag, the length or the key id', async () => {
    const codec = createPayloadCodec({ encryption: { keys: { k1: KEY_1, k2: KEY_2 }, currentKeyId: 'k1' } });
    const [encoded] = await codec.encode([toPayload({ note: SECRET })]);
    const data = Buffer.from(encoded!.data!);
    const flipped = (index: number): Payload => {
      const copy = Buffer.from(data);
      copy[index] = copy[index]! ^ 0x01;
      return { metadata: encoded!.metadata!, data: copy };
    };
    const tampered: Payload[] = [
      flipped(0), // IV
      flipped(20), // ciphertext
      flipped(data.length - 1), // auth tag
      { metadata: encoded!.metadata!, data: data.subarray(0, data.length - 1) },
      { metadata: encoded!.metadata!, data: data.subarray(0, 10) },
      { metadata: { ...encoded!.metadata, 'encryption-key-id': Buffer.from('k2') }, data },
    ];
    for (const payload of tampered) expect((await decodeError(codec, payload)).code).toBe('Codec.DecryptionFailed');

    const withoutKeyId = await decodeError(codec, { metadata: { encoding: encoded!.metadata!.encoding! }, data });
    expect(withoutKeyId.code).toBe('Codec.MalformedPayload');
    expect(withoutKeyId.message).toContain(`no 'encryption-key-id'`);
  });

  it('rejects a gzip payload that is not gzip', async () => {
    const error = await decodeError(createPayloadCodec(), {
      metadata: { encoding: Buffer.from('binary/gzip') },
      data: Buffer.from('not gzip'),
    });
    expect(error.code).toBe('Codec.MalformedPayload');
  });

  it('rotates keys: encodes with the current key, decodes with any known key', async () => {
    const before = createPayloadCodec({ encryption: { keyId: 'k1', key: KEY_1 } });
    const during = createPayloadCodec({ encryption: { keys: { k1: KEY_1, k2: KEY_2 }, currentKeyId: 'k2' } });
    const after = createPayloadCodec({ encryption: { keyId: 'k2', key: KEY_2 } });
    expect(during.encryptionKeyId).toBe('k2');
    expect(during.knownKeyIds.sort()).toEqual(['k1', 'k2']);

    const [old] = await before.encode([toPayload('written before the rotation')]);
    const [fresh] = await during.encode([toPayload('written after the rotation')]);
    expect(meta(fresh!, 'encryption-key-id')).toBe('k2');
    expect((await during.decode([old!, fresh!])).map(fromPayload)).toEqual([
      'written before the rotation',
      'written after the rotation',
    ]);
    expect(fromPayload((await after.decode([fresh!]))[0]!)).toBe('written after the rotation');
    // Before the switch, every node learns the next key without writing with it.
    const rollingOut = createPayloadCodec({ encryption: { keys: { k1: KEY_1, k2: KEY_2 }, currentKeyId: null } });
    expect((await rollingOut.encode([toPayload('plain')]))[0]).toEqual(toPayload('plain'));
    expect((await rollingOut.decode([old!, fresh!])).map(fromPayload)).toHaveLength(2);
    // Dropping the old key too early: the error names it.
    expect((await decodeError(after, old!)).message).toContain(`key id 'k1'`);
  });

  it('accepts keys as bytes, hex, base64 and base64url, all meaning the same key', async () => {
    const [encoded] = await createPayloadCodec({ encryption: { keyId: 'k', key: KEY_1 } }).encode([toPayload(SECRET)]);
    for (const key of [
      KEY_1.toString('hex'),
      KEY_1.toString('base64'),
      KEY_1.toString('base64url'),
      new Uint8Array(KEY_1),
    ]) {
      const codec = createPayloadCodec({ encryption: { keyId: 'k', key } });
      expect(fromPayload((await codec.decode([encoded!]))[0]!)).toBe(SECRET);
    }
  });

  it('refuses bad configuration with messages that say what is wrong', () => {
    const attempt = (fn: () => unknown): PayloadCodecError => {
      try {
        fn();
      } catch (err) {
        if (PayloadCodecError.isInstance(err)) return err;
        throw err;
      }
      throw new Error('expected a PayloadCodecError');
    };
    const short = attempt(() => createPayloadCodec({ encryption: { keyId: 'k', key: randomBytes(16) } }));
    expect(short.code).toBe('Codec.InvalidConfig');
    expect(short.message).toContain(`Encryption key 'k' must be 32 bytes`);
    expect(short.message).toContain('got 16 bytes');
    expect(attempt(() => createPayloadCodec({ encryption: { keyId: 'k', key: 'not a key!' } })).message).toContain(
      'neither hex nor base64',
    );
    expect(
      attempt(() => createPayloadCodec({ encryption: { keys: { k1: KEY_1 }, currentKeyId: 'k2' } })).message,
    ).toContain(`currentKeyId 'k2' is not one of encryption.keys ('k1')`);
    expect(attempt(() => createPayloadCodec({ encryption: { keyId: '', key: KEY_1 } })).message).toContain('non-empty');
    expect(attempt(() => createPayloadCodec({ compression: 'brotli' as 'gzip' })).message).toContain(
      "'gzip' or 'none'",
    );
  });
});
