const MARKER = Symbol.for('durable-agent.error.PayloadCodecError');

/** Why a payload could not be encoded or decoded, or why a codec could not be built. */
export type PayloadCodecErrorCode =
  /** A payload was encrypted with a key id this worker/client does not know. */
  | 'UNKNOWN_KEY_ID'
  /**
   * AES-GCM authentication failed: the payload or its metadata was modified, or the key under that id is a
   * different key.
   */
  | 'DECRYPTION_FAILED'
  /** A payload marked as ours is not in our format (truncated, corrupt, missing its key id). */
  | 'MALFORMED_PAYLOAD'
  /** A compressed payload inflates past `MAX_DECOMPRESSED_BYTES` (a decompression bomb, or corrupt). */
  | 'DECOMPRESSED_TOO_LARGE'
  /** An encrypted payload in a format newer than this codec reads: upgrade this worker/client. */
  | 'UNSUPPORTED_VERSION'
  /** An unencrypted payload reached a codec that encrypts and does not allow plaintext. */
  | 'PLAINTEXT_REFUSED'
  /** An encrypted payload bound to another workflow or namespace than the one it was delivered to. */
  | 'CONTEXT_MISMATCH'
  /** The codec's options or environment variables are invalid. */
  | 'INVALID_CONFIG';

/**
 * A payload codec failure. The message names the key id involved (never key material) and says what to
 * configure, because the person reading it is usually looking at a stuck workflow task or a failed client call.
 */
export class PayloadCodecError extends Error {
  // A registry-wide symbol rather than `instanceof`: two copies of this package still recognise each other's errors.
  private readonly [MARKER] = true;
  readonly code: PayloadCodecErrorCode;
  /** The encryption key id concerned, when there is one. */
  readonly keyId: string | undefined;

  constructor(code: PayloadCodecErrorCode, message: string, options: { keyId?: string; cause?: unknown } = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'PayloadCodecError';
    this.code = code;
    this.keyId = options.keyId;
  }
}

/** True for a {@link PayloadCodecError} from any copy of this package or realm. */
export function isPayloadCodecError(value: unknown): value is PayloadCodecError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
}
