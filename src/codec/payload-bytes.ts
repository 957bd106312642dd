// A Payload as protobuf bytes (`temporal.api.common.v1.Payload`: map<string, bytes> metadata = 1; bytes data = 2),
// so an encoded payload wraps the whole inner payload, its metadata included, in a format any Temporal SDK can
// parse (byte-identical to `Payload.encode` of @temporalio/proto). Written against protobufjs's reader/writer: the
// package depends on protobufjs, not on @temporalio/proto.
import protobuf from 'protobufjs/minimal.js';
import type { Payload } from '@temporalio/common';

const METADATA_FIELD = 1;
const DATA_FIELD = 2;
const ENTRY_KEY_FIELD = 1;
const ENTRY_VALUE_FIELD = 2;
const LENGTH_DELIMITED = 2;

const tag = (field: number): number => (field << 3) | LENGTH_DELIMITED;

/** Serializes a payload's metadata and data. */
export function serializePayload(payload: Payload): Uint8Array {
  const writer = protobuf.Writer.create();
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    writer.uint32(tag(METADATA_FIELD)).fork();
    writer.uint32(tag(ENTRY_KEY_FIELD)).string(key);
    writer.uint32(tag(ENTRY_VALUE_FIELD)).bytes(value);
    writer.ldelim();
  }
  if (payload.data && payload.data.length > 0) writer.uint32(tag(DATA_FIELD)).bytes(payload.data);
  return writer.finish();
}

/** Parses bytes written by {@link serializePayload} (or any protobuf Payload; unknown fields are skipped). */
export function deserializePayload(bytes: Uint8Array): Payload {
  const reader = protobuf.Reader.create(bytes);
  const metadata: Record<string, Uint8Array> = {};
  let data: Uint8Array = new Uint8Array(0);
  while (reader.pos < reader.len) {
    const fieldTag = reader.uint32();
    const field = fieldTag >>> 3;
    if (field === METADATA_FIELD) {
      const end = reader.uint32() + reader.pos;
      let key = '';
      let value: Uint8Array = new Uint8Array(0);
      while (reader.pos < end) {
        const entryTag = reader.uint32();
        if (entryTag >>> 3 === ENTRY_KEY_FIELD) key = reader.string();
        else if (entryTag >>> 3 === ENTRY_VALUE_FIELD) value = reader.bytes();
        else reader.skipType(entryTag & 7);
      }
      metadata[key] = value;
    } else if (field === DATA_FIELD) {
      data = reader.bytes();
    } else {
      reader.skipType(fieldTag & 7);
    }
  }
  return { metadata, data };
}
