import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Payload, PayloadCodec } from '@temporalio/common';
import {
  DEFAULT_COMPRESSION_THRESHOLD_BYTES,
  ENCODING_ENCRYPTED,
  ENCODING_GZIP,
  METADATA_ENCRYPTION_KEY_ID,
} from './constants.js';
import { describeKeyIds, toKeyRing, type KeyRing, type PayloadEncryptionOptions } from './encryption-keys.js';
import { deserializePayload, serializePayload } from './payload-bytes.js';
import { PayloadCodecError } from './payload-codec-error.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const AUTH_TAG_BYTES = 16;
// Encoding adds at most two layers (gzip inside encryption); more means a corrupt or hostile payload.
const MAX_LAYERS = 2;

/** Options of {@link createPayloadCodec}. */
export interface PayloadCodecOptions {
  /**
   * `gzip` (default) compresses a payload when its serialized size is at least `compressionThreshold` and gzip
   * makes it smaller; otherwise it is left as is. `none` never compresses (but still decompresses).
   */
  compression?: 'gzip' | 'none';
  /** Smallest serialized payload, in bytes, worth compressing. Default 1024. */
  compressionThreshold?: number;
  /**
   * AES-256-GCM encryption of every payload, with a random 12-byte IV per payload. One key (`{ keyId, key }`) or
   * a key ring for rotation (`{ keys, currentKeyId }`: encrypt with the current key, decrypt with any; `null`:
   * decrypt only). Keys come from worker/client configuration and never reach history; only the key id does.
   */
  encryption?: PayloadEncryptionOptions;
}

/**
 * Temporal's `PayloadCodec` for durable-agent: compresses and optionally encrypts every payload between the
 * payload converter and the wire (workflow and activity inputs and results, signals, queries, updates, memo,
 * heartbeat and failure details). Give the same codec to the worker and to every client of its runs.
 */
export class DurableAgentPayloadCodec implements PayloadCodec {
  /** Whether new payloads are compressed. */
  readonly compression: 'gzip' | 'none';
  readonly compressionThreshold: number;
  private readonly keyRing: KeyRing | undefined;

  constructor(options: PayloadCodecOptions = {}) {
    const compression = options.compression ?? 'gzip';
    if (compression !== 'gzip' && compression !== 'none') {
      throw new PayloadCodecError(
        'INVALID_CONFIG',
        `compression must be 'gzip' or 'none', not '${String(compression)}'.`,
      );
    }
    const threshold = options.compressionThreshold ?? DEFAULT_COMPRESSION_THRESHOLD_BYTES;
    if (!Number.isInteger(threshold) || threshold < 0) {
      throw new PayloadCodecError('INVALID_CONFIG', `compressionThreshold must be a whole number of bytes >= 0.`);
    }
    this.compression = compression;
    this.compressionThreshold = threshold;
    this.keyRing = options.encryption ? toKeyRing(options.encryption) : undefined;
  }

  /** The key id new payloads are encrypted with, or `undefined` when the codec does not encrypt. */
  get encryptionKeyId(): string | undefined {
    return this.keyRing?.currentKeyId;
  }

  /** Every key id this codec can decrypt. */
  get knownKeyIds(): string[] {
    return [...(this.keyRing?.keys.keys() ?? [])];
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return await Promise.all(payloads.map((payload) => this.encodeOne(payload)));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return await Promise.all(payloads.map((payload) => this.decodeOne(payload)));
  }

  private async encodeOne(payload: Payload): Promise<Payload> {
    // Externally stored payloads carry references our serialization does not keep: pass them through.
    if ((payload as { externalPayloads?: unknown[] }).externalPayloads?.length) return payload;
    let encoded = payload;
    let bytes = serializePayload(payload);
    if (this.compression === 'gzip' && bytes.length >= this.compressionThreshold) {
      const compressed = await gzipAsync(bytes);
      const wrapped: Payload = { metadata: { encoding: utf8(ENCODING_GZIP) }, data: compressed };
      const wrappedBytes = serializePayload(wrapped);
      if (wrappedBytes.length < bytes.length) {
        encoded = wrapped;
        bytes = wrappedBytes;
      }
    }
    const keyId = this.keyRing?.currentKeyId;
    const key = keyId !== undefined ? this.keyRing?.keys.get(keyId) : undefined;
    if (keyId !== undefined && key) encoded = encrypt(bytes, keyId, key);
    return encoded;
  }

  private async decodeOne(payload: Payload): Promise<Payload> {
    let current = payload;
    for (let layer = 0; ; layer++) {
      const encoding = text(current.metadata?.encoding);
      if (encoding !== ENCODING_GZIP && encoding !== ENCODING_ENCRYPTED) return current;
      if (layer === MAX_LAYERS) {
        throw new PayloadCodecError('MALFORMED_PAYLOAD', `A payload is wrapped in more codec layers than we write.`);
      }
      current = encoding === ENCODING_GZIP ? await this.decompress(current) : this.decrypt(current);
    }
  }

  private decrypt(payload: Payload): Payload {
    const keyId = text(payload.metadata?.[METADATA_ENCRYPTION_KEY_ID]);
    if (!keyId) {
      throw new PayloadCodecError(
        'MALFORMED_PAYLOAD',
        `An encrypted payload has no '${METADATA_ENCRYPTION_KEY_ID}' metadata, so there is no telling which key ` +
          `decrypts it: it was not written by this codec, or was modified.`,
      );
    }
    const key = this.keyRing?.keys.get(keyId);
    if (!key) throw unknownKeyError(keyId, this.keyRing);
    const data = payload.data ?? new Uint8Array(0);
    if (data.length < IV_BYTES + AUTH_TAG_BYTES) throw decryptionFailed(keyId);
    try {
      const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES), { authTagLength: AUTH_TAG_BYTES });
      decipher.setAuthTag(data.subarray(data.length - AUTH_TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - AUTH_TAG_BYTES)),
        decipher.final(),
      ]);
      return deserializePayload(plain);
    } catch (cause) {
      throw decryptionFailed(keyId, cause);
    }
  }

  private async decompress(payload: Payload): Promise<Payload> {
    try {
      return deserializePayload(await gunzipAsync(payload.data ?? new Uint8Array(0)));
    } catch (cause) {
      throw new PayloadCodecError('MALFORMED_PAYLOAD', `A '${ENCODING_GZIP}' payload is not valid gzip.`, { cause });
    }
  }
}

/**
 * Builds the payload codec: gzip by default, AES-256-GCM when `encryption` is given. Use it as the `payloadCodec`
 * option of `createAgentWorker` and `AgentClient.connect`, or in any Temporal `dataConverter.payloadCodecs`.
 */
export function createPayloadCodec(options: PayloadCodecOptions = {}): DurableAgentPayloadCodec {
  return new DurableAgentPayloadCodec(options);
}

function encrypt(bytes: Uint8Array, keyId: string, key: Buffer): Payload {
  // A fresh random IV per payload: GCM loses both confidentiality and integrity if an IV repeats under one key.
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: AUTH_TAG_BYTES });
  const data = Buffer.concat([iv, cipher.update(bytes), cipher.final(), cipher.getAuthTag()]);
  return { metadata: { encoding: utf8(ENCODING_ENCRYPTED), [METADATA_ENCRYPTION_KEY_ID]: utf8(keyId) }, data };
}

function unknownKeyError(keyId: string, keyRing: KeyRing | undefined): PayloadCodecError {
  const where =
    `createPayloadCodec({ encryption: { keys: { '${keyId}': <key>, … }, currentKeyId } }) as the payloadCodec of ` +
    `createAgentWorker / AgentClient.connect, or DURABLE_AGENT_ENCRYPTION_KEY_ID=${keyId} with ` +
    `DURABLE_AGENT_ENCRYPTION_KEY, or '${keyId}:<key>' in DURABLE_AGENT_DECRYPTION_KEYS`;
  const message =
    keyRing && keyRing.keys.size > 0
      ? `Cannot decrypt a payload encrypted with key id '${keyId}': this worker/client only has keys ` +
        `${describeKeyIds(keyRing.keys.keys())}. Keep every key that open histories still use after a rotation: ` +
        `configure '${keyId}' with ${where}.`
      : `Cannot decrypt a payload encrypted with key id '${keyId}': this worker/client has no encryption key ` +
        `configured. Configure key '${keyId}' with ${where}.`;
  return new PayloadCodecError('UNKNOWN_KEY_ID', message, { keyId });
}

function decryptionFailed(keyId: string, cause?: unknown): PayloadCodecError {
  return new PayloadCodecError(
    'DECRYPTION_FAILED',
    `A payload encrypted with key id '${keyId}' failed authentication: it was modified after it was encrypted, ` +
      `or the key configured as '${keyId}' here is not the key it was encrypted with. Check that every worker ` +
      `and client has the same key bytes under '${keyId}'.`,
    { keyId, ...(cause !== undefined ? { cause } : {}) },
  );
}

function utf8(value: string): Uint8Array {
  return Buffer.from(value, 'utf8');
}

function text(value: Uint8Array | null | undefined): string | undefined {
  return value ? Buffer.from(value).toString('utf8') : undefined;
}
