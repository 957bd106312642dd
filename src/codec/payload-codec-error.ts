import { DurableAgentError } from '../errors/durable-agent-error.js';

const MARKER = Symbol.for('durable-agent.error.PayloadCodecError');

/** Why a payload could not be encoded or decoded, or why a codec could not be built. */
export type PayloadCodecErrorCode =
  /** A payload was encrypted with a key id this worker/client does not know. */
  | 'Codec.UnknownKeyId'
  /**
   * AES-GCM authentication failed: the payload or its metadata was modified, or the key under that id is a
   * different key.
   */
  | 'Codec.DecryptionFailed'
  /** A payload marked as ours is not in our format (truncated, corrupt, missing its key id). */
  | 'Codec.MalformedPayload'
  /** A compressed payload inflates past `MAX_DECOMPRESSED_BYTES` (a decompression bomb, or corrupt). */
  | 'Codec.DecompressedTooLarge'
  /** An encrypted payload in a format newer than this codec reads: upgrade this worker/client. */
  | 'Codec.UnsupportedVersion'
  /** An unencrypted payload reached a codec that encrypts and does not allow plaintext. */
  | 'Codec.PlaintextRefused'
  /** An encrypted payload bound to another workflow or namespace than the one it was delivered to. */
  | 'Codec.ContextMismatch'
  /** The codec's options or environment variables are invalid. */
  | 'Codec.InvalidConfig';

/**
 * A payload codec failure. The message names the key id involved (never key material) and says what to
 * configure, because the person reading it is usually looking at a stuck workflow task or a failed client call.
 */
export class PayloadCodecError extends DurableAgentError {
  private readonly [MARKER] = true;
  declare readonly code: PayloadCodecErrorCode;
  /** The encryption key id concerned, when there is one. */
  readonly keyId: string | undefined;

  constructor(code: PayloadCodecErrorCode, message: string, options: { keyId?: string; cause?: unknown } = {}) {
    super({ code, message, cause: options.cause });
    this.name = 'PayloadCodecError';
    this.keyId = options.keyId;
  }

  /** True for a {@link PayloadCodecError} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is PayloadCodecError {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}
