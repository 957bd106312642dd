// The run stream's wire codec against Temporal's own protobuf definitions: every item a run writes must decode in any
// language's Workflow Streams client, and a hostile publish must fail to decode, never hang or crash the workflow.
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import {
  decodePayload,
  decodeStreamData,
  encodePayload,
  encodeStreamData,
  fromBase64,
  toBase64,
} from '../../src/protocol/stream-wire.js';

const Payload = temporal.api.common.v1.Payload;

describe('stream wire codec', () => {
  it('base64 agrees with Node for every length and byte', () => {
    for (let length = 0; length < 70; length++) {
      const bytes = randomBytes(length);
      const text = toBase64(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64'));
      expect(Buffer.from(fromBase64(text))).toEqual(bytes);
      expect(Buffer.from(fromBase64(text.replace(/=+$/, '')))).toEqual(bytes);
    }
  });

  it('refuses what is not base64', () => {
    expect(() => fromBase64('ab$d')).toThrow(/not in the alphabet/);
    expect(() => fromBase64('abcde')).toThrow(/impossible/);
    expect(() => fromBase64('éabc')).toThrow(/not in the alphabet/);
  });

  it('encodes a Payload byte for byte as protobufjs does, and decodes what protobufjs encodes', () => {
    for (const value of [{ seq: 1, type: 'text', text: 'héllo ✓' }, 'x'.repeat(300), null, [1, 2, 3], {}]) {
      const payload = defaultPayloadConverter.toPayload(value);
      const ours = encodePayload(payload);
      const theirs = Payload.encode(payload).finish();
      expect(Buffer.from(ours)).toEqual(Buffer.from(theirs));
      const decoded = decodePayload(theirs);
      expect(defaultPayloadConverter.fromPayload(decoded)).toEqual(value);
      expect(defaultPayloadConverter.fromPayload(decodeStreamData(encodeStreamData(payload)))).toEqual(value);
    }
  });

  it('skips fields it does not read (a newer Payload with external references)', () => {
    const payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('1') };
    const bytes = Payload.encode({ ...payload, externalPayloads: [{}, {}] }).finish();
    expect(defaultPayloadConverter.fromPayload(decodePayload(bytes))).toBe(1);
  });

  it('throws on truncated or malformed bytes instead of reading past them', () => {
    const bytes = Payload.encode(defaultPayloadConverter.toPayload({ a: 'b'.repeat(100) })).finish();
    for (let cut = 1; cut < bytes.length; cut += 7) {
      expect(() => decodePayload(bytes.subarray(0, cut))).toThrow();
    }
    expect(() =>
      decodePayload(Uint8Array.from([0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f])),
    ).toThrow();
    expect(() => decodePayload(Uint8Array.from([0x0f]))).toThrow(/wire type/);
  });
});
