// The wire protocol of a run's stream: the signal, update and query names and shapes that Temporal's Workflow
// Streams define across languages (TypeScript's `@temporalio/workflow-streams`, Python's
// `temporalio.contrib.workflow_streams`), spoken here by our own code so that a run's stream needs no second copy of
// Temporal's packages and its poll can be bounded as a run needs. Workflow-safe: no Node built-ins, no protobufjs.
//
// An item's `data` is a Temporal `Payload` (`temporal.api.common.v1.Payload`: `map<string, bytes> metadata = 1;
// bytes data = 2;`) in protobuf binary form, base64-encoded (RFC 4648, padded), so that a plain JSON envelope carries
// it and a watcher in any language decodes it with its SDK's payload converter.
import type { Payload } from '@temporalio/common';

/** The signal publishers send batches with. */
export const STREAM_PUBLISH_SIGNAL = '__temporal_workflow_stream_publish';
/** The update watchers long-poll with. */
export const STREAM_POLL_UPDATE = '__temporal_workflow_stream_poll';
/** The query that answers the stream's next offset. */
export const STREAM_OFFSET_QUERY = '__temporal_workflow_stream_offset';

/** Failure types a poll may be refused or failed with (the first two are Workflow Streams' own). */
export const STREAM_DRAINING_FAILURE = 'StreamDraining';
export const STREAM_TRUNCATED_FAILURE = 'TruncatedOffset';

/** One entry of a publish batch. */
export interface StreamPublishEntry {
  topic: string;
  /** Base64 of a `Payload` in protobuf binary form. */
  data: string;
}

/** A publish signal's input: a batch and the publisher's sequence (a resent batch repeats its sequence). */
export interface StreamPublishInput {
  items: StreamPublishEntry[];
  publisher_id: string;
  sequence: number;
}

/** A poll update's input: the offset to read from and the topics to read (none: every topic). */
export interface StreamPollInput {
  topics: string[];
  from_offset: number;
}

/** An item as a poll returns it. */
export interface StreamWireItem extends StreamPublishEntry {
  offset: number;
}

/** A poll update's result. `more_ready`: the result was cut to its size bound, poll again at once. */
export interface StreamPollResult {
  items: StreamWireItem[];
  next_offset: number;
  more_ready: boolean;
}

/**
 * What a run carries over continue-as-new: its newest items (their `offset` is not read: an item's offset is
 * `base_offset` plus its index) and the offset of the first. The publisher maps are kept for the shape Workflow
 * Streams' state has; a run keeps its publishers' sequences per step instead, so it writes them empty.
 */
export interface StreamState {
  log: StreamWireItem[];
  base_offset: number;
  publisher_sequences: Record<string, number>;
  publisher_last_seen: Record<string, number>;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SEXTETS = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) SEXTETS[ALPHABET.charCodeAt(i)] = i;

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  const out: string[] = [];
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out.push(ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!);
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out.push(ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + '==');
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out.push(ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + '=');
  }
  return out.join('');
}

/** Standard base64, padded or not; throws on any other character or an impossible length. */
export function fromBase64(text: string): Uint8Array {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 61 /* = */ && text.length - end < 2) end--;
  if (end % 4 === 1) throw new TypeError(`Not base64: a length of ${end} characters is impossible.`);
  const out = new Uint8Array(Math.floor((end * 3) / 4));
  let bits = 0;
  let value = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const code = text.charCodeAt(i);
    const sextet = code < 128 ? SEXTETS[code]! : -1;
    if (sextet < 0) throw new TypeError(`Not base64: character ${i} is not in the alphabet.`);
    value = ((value << 6) | sextet) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (value >> bits) & 0xff;
    }
  }
  return out;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

function pushVarint(out: number[], n: number): void {
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
}

function pushField(out: number[], tag: number, bytes: ArrayLike<number>): void {
  out.push(tag);
  pushVarint(out, bytes.length);
  for (let i = 0; i < bytes.length; i++) out.push(bytes[i]!);
}

/** A `Payload` in protobuf binary form: each metadata entry as field 1 (an entry message), `data` as field 2. */
export function encodePayload(payload: Payload): Uint8Array {
  const out: number[] = [];
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    if (value === null || value === undefined) continue;
    const entry: number[] = [];
    pushField(entry, 0x0a, utf8Encoder.encode(key));
    pushField(entry, 0x12, value);
    pushField(out, 0x0a, entry);
  }
  if (payload.data && payload.data.length > 0) pushField(out, 0x12, payload.data);
  return Uint8Array.from(out);
}

/** Reads a varint at `at.i`; throws past the end or beyond 2^53. */
function readVarint(bytes: Uint8Array, at: { i: number }): number {
  let n = 0;
  for (let shift = 0; shift <= 49; shift += 7) {
    if (at.i >= bytes.length) throw new RangeError('Payload bytes end inside a varint.');
    const byte = bytes[at.i++]!;
    n += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return n;
  }
  throw new RangeError('Payload varint too long.');
}

/** Reads a length-delimited field's bytes at `at.i`; throws when they run past the end. */
function readBytes(bytes: Uint8Array, at: { i: number }): Uint8Array {
  const length = readVarint(bytes, at);
  if (at.i + length > bytes.length) throw new RangeError('Payload field runs past the end of its bytes.');
  const value = bytes.subarray(at.i, at.i + length);
  at.i += length;
  return value;
}

/** Skips a field of another wire type (fields this protocol does not read, e.g. external payload references). */
function skipField(bytes: Uint8Array, at: { i: number }, wireType: number): void {
  if (wireType === 0) readVarint(bytes, at);
  else if (wireType === 1) at.i += 8;
  else if (wireType === 2) readBytes(bytes, at);
  else if (wireType === 5) at.i += 4;
  else throw new RangeError(`Payload has a field of unsupported wire type ${wireType}.`);
  if (at.i > bytes.length) throw new RangeError('Payload field runs past the end of its bytes.');
}

/** The `Payload` of its protobuf binary form; throws on malformed bytes. */
export function decodePayload(bytes: Uint8Array): Payload {
  const metadata: Record<string, Uint8Array> = {};
  let data = new Uint8Array(0);
  const at = { i: 0 };
  while (at.i < bytes.length) {
    const tag = readVarint(bytes, at);
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (wireType === 2 && field === 1) {
      const entry = readBytes(bytes, at);
      const inner = { i: 0 };
      let key = '';
      let value = new Uint8Array(0);
      while (inner.i < entry.length) {
        const innerTag = readVarint(entry, inner);
        if (innerTag === 0x0a) key = utf8Decoder.decode(readBytes(entry, inner));
        else if (innerTag === 0x12) value = Uint8Array.from(readBytes(entry, inner));
        else skipField(entry, inner, innerTag % 8);
      }
      metadata[key] = value;
    } else if (wireType === 2 && field === 2) {
      data = Uint8Array.from(readBytes(bytes, at));
    } else {
      skipField(bytes, at, wireType);
    }
  }
  return { metadata, data };
}

/** A `Payload` as a stream item's `data`. */
export function encodeStreamData(payload: Payload): string {
  return toBase64(encodePayload(payload));
}

/** The `Payload` of a stream item's `data`; throws when it is not one. */
export function decodeStreamData(data: string): Payload {
  return decodePayload(fromBase64(data));
}
