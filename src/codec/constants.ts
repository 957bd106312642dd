// Metadata the codec writes on the payloads it encodes. The names follow Temporal's encryption samples; the
// values are part of the wire format recorded in histories, so they never change.

/** `encoding` of a gzip-compressed payload: its data is the gzip of the whole serialized inner payload. */
export const ENCODING_GZIP = 'binary/gzip';
/** `encoding` of an AES-256-GCM encrypted payload: its data is IV ‖ ciphertext ‖ auth tag of the inner payload. */
export const ENCODING_ENCRYPTED = 'binary/encrypted';
/** Metadata key naming the key an encrypted payload was encrypted with. */
export const METADATA_ENCRYPTION_KEY_ID = 'encryption-key-id';
/**
 * Metadata key of the encryption format. Absent: format 1 (no associated data), written before payloads were
 * bound to their context; still decrypted so existing histories stay readable.
 */
export const METADATA_ENCRYPTION_VERSION = 'encryption-version';
/** Metadata key of the namespace a format-2 payload is bound to (absent when it was encoded without context). */
export const METADATA_ENCRYPTION_NAMESPACE = 'encryption-namespace';
/** Metadata key of the workflow id a format-2 payload is bound to (absent when it was encoded without one). */
export const METADATA_ENCRYPTION_WORKFLOW_ID = 'encryption-workflow-id';
/** The encryption format this codec writes: AES-256-GCM with the outer metadata as associated data. */
export const ENCRYPTION_VERSION = '2';
/** Payloads whose serialized size is below this many bytes are not compressed (gzip would not pay for itself). */
export const DEFAULT_COMPRESSION_THRESHOLD_BYTES = 1024;
/**
 * The most a `binary/gzip` layer may inflate to: 16 MiB, eight times Temporal's default 2 MB payload limit.
 * Decompression stops there, so a small hostile payload cannot inflate to gigabytes. It is part of the wire
 * format, not an option: every worker must refuse the same payloads, or a history would replay differently on
 * another worker. The encoder never compresses a payload larger than this, so whatever it writes it can read.
 */
export const MAX_DECOMPRESSED_BYTES = 16 * 1024 * 1024;
