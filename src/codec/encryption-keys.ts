// Turning the key options people write (one key, or a key ring for rotation) into 32-byte AES-256 keys. Errors
// name the key id and the expected forms, never the key material.
import { registerSecret } from '../secrets/redact-secrets.js';
import { PayloadCodecError } from './payload-codec-error.js';

/** AES-256 needs exactly this many key bytes. */
export const KEY_BYTES = 32;

/** An AES-256 key: 32 raw bytes, or a string of them in hex (64 characters) or base64 / base64url. */
export type EncryptionKeyInput = Uint8Array | string;

/** Encryption with a single key: every payload is encrypted with it, and only it can decrypt. */
export interface SingleKeyEncryption {
  /** Recorded in each payload's `encryption-key-id`, so the key can be rotated later. */
  keyId: string;
  key: EncryptionKeyInput;
}

/**
 * Encryption with a key ring, for rotation: new payloads are encrypted with `currentKeyId`'s key, and payloads
 * already in history decrypt with whichever key their `encryption-key-id` names. `currentKeyId: null` decrypts
 * but encrypts nothing: the first step of a rolling rollout, so every worker and client can read a key before
 * any of them writes with it.
 */
export interface KeyRingEncryption {
  keys: Record<string, EncryptionKeyInput>;
  currentKeyId: string | null;
}

/** The `encryption` option of `createPayloadCodec`. */
export type PayloadEncryptionOptions = SingleKeyEncryption | KeyRingEncryption;

/** Validated keys: every key id the codec can decrypt, and the one it encrypts with (none: decrypt only). */
export interface KeyRing {
  keys: ReadonlyMap<string, Buffer>;
  currentKeyId: string | undefined;
}

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const BASE64_KEY = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Decodes one key to its 32 bytes, or throws naming `keyId` and the accepted forms. */
export function parseEncryptionKey(keyId: string, key: EncryptionKeyInput): Buffer {
  let bytes: Buffer | undefined;
  if (typeof key === 'string') {
    const text = key.trim();
    if (HEX_KEY.test(text)) bytes = Buffer.from(text, 'hex');
    else if (BASE64_KEY.test(text)) bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  } else if (key instanceof Uint8Array) {
    bytes = Buffer.from(key);
  }
  if (bytes?.length !== KEY_BYTES) {
    const got = bytes ? `${bytes.length} bytes` : typeof key === 'string' ? 'neither hex nor base64' : typeof key;
    throw new PayloadCodecError(
      'Codec.InvalidConfig',
      `Encryption key '${keyId}' must be ${KEY_BYTES} bytes (AES-256): a Buffer, or a string of 64 hex characters ` +
        `or base64 (got ${got}). Generate one with \`openssl rand -base64 32\`.`,
      { keyId },
    );
  }
  // Never expected in any text, but a tool echoing its environment must not put a key into history either.
  if (typeof key === 'string') registerSecret(key);
  registerSecret(bytes.toString('base64'));
  registerSecret(bytes.toString('base64url'));
  registerSecret(bytes.toString('hex'));
  return bytes;
}

/** Validates the `encryption` option into a key ring. */
export function toKeyRing(options: PayloadEncryptionOptions): KeyRing {
  const entries: [string, EncryptionKeyInput][] =
    'keys' in options ? Object.entries(options.keys) : [[options.keyId, options.key]];
  const currentKeyId = 'keys' in options ? options.currentKeyId : options.keyId;
  const keys = new Map<string, Buffer>();
  for (const [keyId, key] of entries) {
    checkKeyId(keyId);
    keys.set(keyId, parseEncryptionKey(keyId, key));
  }
  if (currentKeyId === null) return { keys, currentKeyId: undefined };
  checkKeyId(currentKeyId);
  if (!keys.has(currentKeyId)) {
    throw new PayloadCodecError(
      'Codec.InvalidConfig',
      `encryption.currentKeyId '${currentKeyId}' is not one of encryption.keys (${describeKeyIds(keys.keys())}): ` +
        `add its key to encryption.keys.`,
      { keyId: currentKeyId },
    );
  }
  return { keys, currentKeyId };
}

/** `'a', 'b'` for error messages, or `none`. */
export function describeKeyIds(keyIds: Iterable<string>): string {
  const list = [...keyIds].map((id) => `'${id}'`);
  return list.length > 0 ? list.join(', ') : 'none';
}

function checkKeyId(keyId: unknown): asserts keyId is string {
  if (typeof keyId !== 'string' || keyId.trim() === '') {
    throw new PayloadCodecError('Codec.InvalidConfig', 'Encryption key ids must be non-empty strings.');
  }
}
