// Metadata the codec writes on the payloads it encodes. The names follow Temporal's encryption samples; the
// values are part of the wire format recorded in histories, so they never change.

/** `encoding` of a gzip-compressed payload: its data is the gzip of the whole serialized inner payload. */
export const ENCODING_GZIP = 'binary/gzip';
/** `encoding` of an AES-256-GCM encrypted payload: its data is IV ‖ ciphertext ‖ auth tag of the inner payload. */
export const ENCODING_ENCRYPTED = 'binary/encrypted';
/** Metadata key naming the key an encrypted payload was encrypted with. */
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';
/** Payloads whose serialized size is below this many bytes are not compressed (gzip would not pay for itself). */
export const DEFAULT_COMPRESSION_THRESHOLD_BYTES = 1024;
