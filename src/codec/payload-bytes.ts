// A Payload as protobuf bytes, so each codec layer wraps the whole inner payload (its metadata included) in a format
// any Temporal SDK can parse. The SDK's own generated `temporal.api.common.v1.Payload` does the framing.
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';

// CommonJS: its named exports are not visible to ESM imports.
const ProtoPayload = proto.temporal.api.common.v1.Payload;

/** Serializes a payload (metadata, data and any external-payload details). */
export function serializePayload(payload: Payload): Uint8Array {
  return ProtoPayload.encode(payload).finish();
}

/** Parses a serialized payload. Throws when the bytes are not a protobuf `Payload`. */
export function deserializePayload(bytes: Uint8Array): Payload {
  const message = ProtoPayload.decode(bytes);
  const payload: Payload = { metadata: message.metadata, data: message.data };
  if (message.externalPayloads.length > 0) payload.externalPayloads = message.externalPayloads;
  return payload;
}
