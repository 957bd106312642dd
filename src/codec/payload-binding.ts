// What an encrypted payload is bound to: the namespace and workflow id of the serialization context Temporal gives
// the codec. They are recorded in the payload's metadata (so a codec server, which has no context, can still
// decrypt) and authenticated as AES-GCM associated data (so nobody can edit them), and checked against the context
// on decode (so a payload copied from one workflow's history cannot be delivered to another workflow).
import type { SerializationContext } from '@temporalio/common';
import {
  ENCODING_ENCRYPTED,
  ENCRYPTION_VERSION,
  METADATA_ENCRYPTION_KEY_ID,
  METADATA_ENCRYPTION_NAMESPACE,
  METADATA_ENCRYPTION_VERSION,
  METADATA_ENCRYPTION_WORKFLOW_ID,
} from './constants.js';
import { PayloadCodecError } from './payload-codec-error.js';

/** The metadata of an encrypted payload, as strings. */
export interface EncryptedMetadata {
  keyId: string;
  version: string | undefined;
  namespace: string | undefined;
  workflowId: string | undefined;
}

// The metadata keys authenticated as associated data, in this order. Only keys this codec writes: metadata another
// component adds later must not invalidate the payload.
const BOUND_KEYS = [
  'encoding',
  METADATA_ENCRYPTION_KEY_ID,
  METADATA_ENCRYPTION_VERSION,
  METADATA_ENCRYPTION_NAMESPACE,
  METADATA_ENCRYPTION_WORKFLOW_ID,
] as const;

const AAD_LABEL = 'durable-agent/payload-encryption/2';

// The server starts a schedule's workflows as `<action workflow id>-<RFC 3339 time>`, but the client encodes the
// action's arguments with the action's workflow id (Temporal's Java SDK notes the same limitation).
const SCHEDULED_SUFFIX = /^-\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/** The metadata a payload encrypted now, in `context`, carries. */
export function bindingMetadata(keyId: string, context: SerializationContext | undefined): Record<string, Uint8Array> {
  const metadata: Record<string, Uint8Array> = {
    encoding: utf8(ENCODING_ENCRYPTED),
    [METADATA_ENCRYPTION_KEY_ID]: utf8(keyId),
    [METADATA_ENCRYPTION_VERSION]: utf8(ENCRYPTION_VERSION),
  };
  if (context?.namespace) metadata[METADATA_ENCRYPTION_NAMESPACE] = utf8(context.namespace);
  if (context?.workflowId) metadata[METADATA_ENCRYPTION_WORKFLOW_ID] = utf8(context.workflowId);
  return metadata;
}

/**
 * The associated data of a format-2 payload: every bound metadata entry, length-prefixed so that no two different
 * metadata maps give the same bytes. Editing the key id, version, namespace or workflow id fails authentication.
 */
export function associatedData(metadata: Record<string, Uint8Array | null | undefined>): Buffer {
  const parts: Buffer[] = [lengthPrefixed(utf8(AAD_LABEL))];
  for (const key of BOUND_KEYS) {
    const value = metadata[key];
    parts.push(value ? Buffer.concat([Buffer.from([1]), lengthPrefixed(value)]) : Buffer.from([0]));
  }
  return Buffer.concat(parts);
}

/** Reads an encrypted payload's metadata. */
export function readEncryptedMetadata(metadata: Record<string, Uint8Array | null | undefined>): EncryptedMetadata {
  const keyId = text(metadata[METADATA_ENCRYPTION_KEY_ID]);
  if (!keyId) {
    throw new PayloadCodecError(
      'Codec.MalformedPayload',
      `An encrypted payload has no '${METADATA_ENCRYPTION_KEY_ID}' metadata, so there is no telling which key ` +
        `decrypts it: it was not written by this codec, or was modified.`,
    );
  }
  return {
    keyId,
    version: text(metadata[METADATA_ENCRYPTION_VERSION]),
    namespace: text(metadata[METADATA_ENCRYPTION_NAMESPACE]),
    workflowId: text(metadata[METADATA_ENCRYPTION_WORKFLOW_ID]),
  };
}

/**
 * Refuses a payload bound to another namespace or workflow than the context it is decoded in. Without a context
 * (a codec server, a script decoding a fetched history) there is nothing to compare, and the payload is accepted.
 */
export function checkBinding(bound: EncryptedMetadata, context: SerializationContext | undefined): void {
  if (context === undefined) return;
  if (bound.namespace !== undefined && context.namespace && bound.namespace !== context.namespace) {
    throw contextMismatch(`namespace '${bound.namespace}'`, `namespace '${context.namespace}'`, bound.keyId);
  }
  const workflowId = context.workflowId;
  if (bound.workflowId === undefined || !workflowId || workflowId === bound.workflowId) return;
  const scheduled =
    workflowId.startsWith(bound.workflowId) && SCHEDULED_SUFFIX.test(workflowId.slice(bound.workflowId.length));
  if (!scheduled) throw contextMismatch(`workflow '${bound.workflowId}'`, `workflow '${workflowId}'`, bound.keyId);
}

function contextMismatch(boundTo: string, deliveredTo: string, keyId: string): PayloadCodecError {
  return new PayloadCodecError(
    'Codec.ContextMismatch',
    `Refused an encrypted payload bound to ${boundTo} that was delivered to ${deliveredTo}: it was copied from ` +
      `another run's history, not written for this one. If this is a replay of a history, give the replayer the ` +
      `history's real workflow id.`,
    { keyId },
  );
}

function lengthPrefixed(bytes: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

function utf8(value: string): Uint8Array {
  return Buffer.from(value, 'utf8');
}

function text(value: Uint8Array | null | undefined): string | undefined {
  return value ? Buffer.from(value).toString('utf8') : undefined;
}
