// The payload codec's public surface: compression, encryption bound to its context, and the worker's handling of
// payloads it refuses.
export { createPayloadCodec, DurableAgentPayloadCodec, type PayloadCodecOptions } from './create-payload-codec.js';
export { payloadCodecFromEnv, DEFAULT_ENCRYPTION_KEY_ID } from './payload-codec-from-env.js';
export {
  KEY_BYTES,
  parseEncryptionKey,
  type EncryptionKeyInput,
  type KeyRingEncryption,
  type PayloadEncryptionOptions,
  type SingleKeyEncryption,
} from './encryption-keys.js';
export { PayloadCodecError, type PayloadCodecErrorCode } from './payload-codec-error.js';
export {
  DEFAULT_COMPRESSION_THRESHOLD_BYTES,
  ENCODING_ENCRYPTED,
  ENCODING_GZIP,
  ENCRYPTION_VERSION,
  MAX_DECOMPRESSED_BYTES,
  METADATA_ENCRYPTION_KEY_ID,
  METADATA_ENCRYPTION_NAMESPACE,
  METADATA_ENCRYPTION_VERSION,
  METADATA_ENCRYPTION_WORKFLOW_ID,
} from './constants.js';
export { withPayloadCodec } from './with-payload-codec.js';
export { withWorkerPayloadCodec, workerPayloadCodec } from './worker-payload-codec.js';
export {
  REFUSED_PAYLOAD_KEY,
  refusedPayloadOf,
  type RefusedPayload,
  type RefusedPayloadValue,
} from '../protocol/refused-payload.js';
