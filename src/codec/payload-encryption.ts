// AES-256-GCM of serialized payloads. Format 2 (written now) authenticates the outer metadata as associated data
// and binds the payload to its namespace and workflow id; format 1 (no version metadata, no associated data) is
// still decrypted, so histories written before stay readable.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, SerializationContext } from '@temporalio/common';
import { ENCRYPTION_VERSION, METADATA_ENCRYPTION_VERSION } from './constants.js';
import { describeKeyIds, type KeyRing } from './encryption-keys.js';
import { associatedData, bindingMetadata, checkBinding, readEncryptedMetadata } from './payload-binding.js';
import { PayloadCodecError } from './payload-codec-error.js';

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const AUTH_TAG_BYTES = 16;

/** Encrypts serialized payload bytes with `key`, bound to `context`. */
export function encryptPayload(
  bytes: Uint8Array,
  keyId: string,
  key: Buffer,
  context: SerializationContext | undefined,
): Payload {
  const metadata = bindingMetadata(keyId, context);
  // A fresh random IV per payload: GCM loses both confidentiality and integrity if an IV repeats under one key.
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(CIPHER, key, iv, { authTagLength: AUTH_TAG_BYTES });
  cipher.setAAD(associatedData(metadata));
  const data = Buffer.concat([iv, cipher.update(bytes), cipher.final(), cipher.getAuthTag()]);
  return { metadata, data };
}

/** Decrypts an encrypted payload to the serialized inner payload, checking its binding to `context`. */
export function decryptPayload(
  payload: Payload,
  keyRing: KeyRing | undefined,
  context: SerializationContext | undefined,
): Uint8Array {
  const metadata = payload.metadata ?? {};
  const bound = readEncryptedMetadata(metadata);
  const { keyId, version } = bound;
  if (version !== undefined && version !== ENCRYPTION_VERSION) {
    throw new PayloadCodecError(
      'Codec.UnsupportedVersion',
      `A payload is encrypted in format '${version}' (its '${METADATA_ENCRYPTION_VERSION}' metadata), newer than ` +
        `this worker/client reads (${ENCRYPTION_VERSION}): upgrade durable-agent here to the version that wrote it.`,
      { keyId },
    );
  }
  const key = keyRing?.keys.get(keyId);
  if (!key) throw unknownKeyError(keyId, keyRing);
  // Before decrypting: a mismatch says exactly what happened, where a failed tag could mean several things.
  if (version !== undefined) checkBinding(bound, context);
  const data = payload.data ?? new Uint8Array(0);
  if (data.length < IV_BYTES + AUTH_TAG_BYTES) throw decryptionFailed(keyId);
  try {
    const decipher = createDecipheriv(CIPHER, key, data.subarray(0, IV_BYTES), { authTagLength: AUTH_TAG_BYTES });
    if (version !== undefined) decipher.setAAD(associatedData(metadata));
    decipher.setAuthTag(data.subarray(data.length - AUTH_TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.length - AUTH_TAG_BYTES)), decipher.final()]);
  } catch (cause) {
    throw decryptionFailed(keyId, cause);
  }
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
  return new PayloadCodecError('Codec.UnknownKeyId', message, { keyId });
}

function decryptionFailed(keyId: string, cause?: unknown): PayloadCodecError {
  return new PayloadCodecError(
    'Codec.DecryptionFailed',
    `A payload encrypted with key id '${keyId}' failed authentication: it or its metadata was modified after it ` +
      `was encrypted, or the key configured as '${keyId}' here is not the key it was encrypted with. Check that ` +
      `every worker and client has the same key bytes under '${keyId}'.`,
    { keyId, ...(cause !== undefined ? { cause } : {}) },
  );
}
