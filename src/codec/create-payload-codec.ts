import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import {
  DEFAULT_COMPRESSION_THRESHOLD_BYTES,
  ENCODING_ENCRYPTED,
  ENCODING_GZIP,
  MAX_DECOMPRESSED_BYTES,
} from './constants.js';
import { toKeyRing, type KeyRing, type PayloadEncryptionOptions } from './encryption-keys.js';
import { deserializePayload, serializePayload } from './payload-bytes.js';
import { PayloadCodecError } from './payload-codec-error.js';
import { compress, decompress } from './payload-compression.js';
import { decryptPayload, encryptPayload } from './payload-encryption.js';

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
   * AES-256-GCM encryption of every payload, with a random 12-byte IV per payload, bound to the namespace and
   * workflow id it is written for. One key (`{ keyId, key }`) or a key ring for rotation (`{ keys, currentKeyId }`:
   * encrypt with the current key, decrypt with any; `null`: decrypt only). Keys come from worker/client
   * configuration and never reach history; only the key id does.
   */
  encryption?: PayloadEncryptionOptions;
  /**
   * Whether a codec that encrypts also accepts unencrypted payloads. Default `false`: once a key encrypts, a
   * plaintext payload (from a client without the key, or forged) is refused with `Codec.PlaintextRefused`. Set it while
   * migrating to encryption, until every run that was open before is closed. A codec that does not encrypt
   * (no key, or decrypt-only) always accepts plaintext: it writes it.
   */
  allowPlaintext?: boolean;
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
  /** Whether unencrypted payloads are accepted; always true when this codec does not encrypt. */
  readonly allowPlaintext: boolean;
  private readonly keyRing: KeyRing | undefined;

  constructor(options: PayloadCodecOptions = {}) {
    const compression = options.compression ?? 'gzip';
    if (compression !== 'gzip' && compression !== 'none') {
      throw new PayloadCodecError(
        'Codec.InvalidConfig',
        `compression must be 'gzip' or 'none', not '${String(compression)}'.`,
      );
    }
    const threshold = options.compressionThreshold ?? DEFAULT_COMPRESSION_THRESHOLD_BYTES;
    if (!Number.isInteger(threshold) || threshold < 0) {
      throw new PayloadCodecError('Codec.InvalidConfig', `compressionThreshold must be a whole number of bytes >= 0.`);
    }
    if (options.allowPlaintext !== undefined && typeof options.allowPlaintext !== 'boolean') {
      throw new PayloadCodecError('Codec.InvalidConfig', 'allowPlaintext must be true or false.');
    }
    this.compression = compression;
    this.compressionThreshold = threshold;
    this.keyRing = options.encryption ? toKeyRing(options.encryption) : undefined;
    this.allowPlaintext = options.allowPlaintext === true || this.keyRing?.currentKeyId === undefined;
  }

  /** The key id new payloads are encrypted with, or `undefined` when the codec does not encrypt. */
  get encryptionKeyId(): string | undefined {
    return this.keyRing?.currentKeyId;
  }

  /** Every key id this codec can decrypt. */
  get knownKeyIds(): string[] {
    return [...(this.keyRing?.keys.keys() ?? [])];
  }

  /** Encodes payloads; `context` (given by Temporal) is the namespace and workflow they are bound to. */
  async encode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    if (this.encodesAsIs()) return payloads;
    return await Promise.all(payloads.map((payload) => this.encodeOne(payload, context)));
  }

  /** Decodes payloads, refusing any bound to another workflow than `context`'s. */
  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    if (this.decodesAsIs(payloads)) return payloads;
    return await Promise.all(payloads.map((payload) => this.decodeOne(payload, context)));
  }

  /** True when {@link encode} leaves every payload as it is: neither compressing nor encrypting (no keys). */
  encodesAsIs(): boolean {
    return this.compression === 'none' && this.keyRing?.currentKeyId === undefined;
  }

  /**
   * True when {@link decode} returns `payloads` as they are: plain payloads that this codec accepts (most of them,
   * without keys). Synchronous, so a caller can skip the codec's promises for them.
   */
  decodesAsIs(payloads: readonly Payload[]): boolean {
    return this.allowPlaintext && payloads.every(isPlain);
  }

  private async encodeOne(payload: Payload, context: SerializationContext | undefined): Promise<Payload> {
    // Externally stored payloads are references resolved outside the codec: pass them through.
    if (payload.externalPayloads?.length) return payload;
    let encoded = payload;
    let bytes = serializePayload(payload);
    // Above the decompression limit a gzip layer would be refused on decode: leave such a payload uncompressed.
    if (
      this.compression === 'gzip' &&
      bytes.length >= this.compressionThreshold &&
      bytes.length <= MAX_DECOMPRESSED_BYTES
    ) {
      const wrapped: Payload = { metadata: { encoding: utf8(ENCODING_GZIP) }, data: await compress(bytes) };
      const wrappedBytes = serializePayload(wrapped);
      if (wrappedBytes.length < bytes.length) {
        encoded = wrapped;
        bytes = wrappedBytes;
      }
    }
    const keyId = this.keyRing?.currentKeyId;
    const key = keyId !== undefined ? this.keyRing?.keys.get(keyId) : undefined;
    if (keyId !== undefined && key) encoded = encryptPayload(bytes, keyId, key, context);
    return encoded;
  }

  private async decodeOne(payload: Payload, context: SerializationContext | undefined): Promise<Payload> {
    if (payload.externalPayloads?.length) return payload;
    const outer = text(payload.metadata?.encoding);
    let current = payload;
    for (let layer = 0; ; layer++) {
      const encoding = text(current.metadata?.encoding);
      if (encoding !== ENCODING_GZIP && encoding !== ENCODING_ENCRYPTED) break;
      if (layer === MAX_LAYERS) {
        throw new PayloadCodecError(
          'Codec.MalformedPayload',
          `A payload is wrapped in more codec layers than we write.`,
        );
      }
      const inner =
        encoding === ENCODING_GZIP
          ? await decompress(current.data ?? new Uint8Array(0))
          : decryptPayload(current, this.keyRing, context);
      current = parseInner(inner, encoding);
    }
    // The policy comes after the structure: a payload no configuration could read (a bomb, junk) is refused as
    // such, whatever this codec allows; only a well-formed plaintext payload is refused for being plaintext.
    if (outer !== ENCODING_ENCRYPTED && !this.allowPlaintext) throw plaintextRefused(outer);
    return current;
  }
}

/**
 * Builds the payload codec: gzip by default, AES-256-GCM when `encryption` is given. Use it as the `payloadCodec`
 * option of `createAgentWorker` and `AgentClient.connect`, or in any Temporal `dataConverter.payloadCodecs`.
 */
export function createPayloadCodec(options: PayloadCodecOptions = {}): DurableAgentPayloadCodec {
  return new DurableAgentPayloadCodec(options);
}

function parseInner(bytes: Uint8Array, encoding: string): Payload {
  try {
    return deserializePayload(bytes);
  } catch (cause) {
    throw new PayloadCodecError('Codec.MalformedPayload', `A '${encoding}' payload does not hold a Temporal payload.`, {
      cause,
    });
  }
}

function plaintextRefused(encoding: string | undefined): PayloadCodecError {
  return new PayloadCodecError(
    'Codec.PlaintextRefused',
    `Refused an unencrypted payload (encoding '${encoding ?? 'none'}'): this worker/client encrypts, so it accepts ` +
      `only encrypted payloads. It was written by a process without the codec (a client built without ` +
      `payloadCodec, the temporal CLI, a worker without the key): give that process the same codec. While ` +
      `migrating to encryption, set allowPlaintext: true (DURABLE_AGENT_ALLOW_PLAINTEXT=true) until every run ` +
      `that was open before encryption was turned on has closed. A payload nobody should have sent (a forged ` +
      `signal) is applied if you allow plaintext: reset or terminate its run instead.`,
  );
}

const GZIP_BYTES = utf8(ENCODING_GZIP);
const ENCRYPTED_BYTES = utf8(ENCODING_ENCRYPTED);

/** A payload with no codec layer of ours: not gzip, not encrypted (external payloads are passed through too). */
function isPlain(payload: Payload): boolean {
  if (payload.externalPayloads?.length) return true;
  const encoding = payload.metadata?.encoding;
  return !encoding || (!sameBytes(encoding, GZIP_BYTES) && !sameBytes(encoding, ENCRYPTED_BYTES));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function utf8(value: string): Uint8Array {
  return Buffer.from(value, 'utf8');
}

function text(value: Uint8Array | null | undefined): string | undefined {
  return value ? Buffer.from(value).toString('utf8') : undefined;
}
