import { createHmac, timingSafeEqual } from 'node:crypto';
import type { LiveRunRef } from './live-stream.js';

/**
 * The authentication code of one live stream entry: HMAC-SHA256 under the stream key (which only workers and the
 * trusted readers hold) over the run, the publishing attempt, the entry's offset, its topic and its data, base64url.
 * A key name in Redis is no secret, so anyone who can reach Redis can XADD: without the key they cannot make an entry
 * a reader accepts, and since the offset is bound in, a genuine entry added again is a repeat the reader drops.
 */
export function entryMac(
  key: Uint8Array,
  run: LiveRunRef,
  attempt: number,
  offset: number,
  topic: string,
  data: string,
): string {
  // JSON of an array: unambiguous framing of the fields (no separator can be smuggled inside one).
  const message = JSON.stringify([run.workflowId, run.firstRunId, attempt, offset, topic, data]);
  return createHmac('sha256', key).update(message).digest('base64url');
}

/** Whether `mac` is the entry's code (compared in constant time). */
export function verifyEntryMac(
  key: Uint8Array,
  run: LiveRunRef,
  attempt: number,
  offset: number,
  topic: string,
  data: string,
  mac: string,
): boolean {
  const expected = Buffer.from(entryMac(key, run, attempt, offset, topic, data));
  const given = Buffer.from(mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
