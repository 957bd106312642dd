/**
 * UTF-8 byte length of a string, computed without `TextEncoder` or `Buffer` (neither is available in the workflow
 * sandbox). Temporal's limits (2 MB per payload, 4 MB per gRPC message) are in bytes of the encoded payload, and a
 * string's `.length` counts UTF-16 units: '€' is 1 unit but 3 bytes.
 */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      // A surrogate pair is one code point of 4 bytes; a lone surrogate is encoded as U+FFFD (3 bytes).
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Bytes of a value as Temporal's default JSON payload converter stores it: the UTF-8 bytes of its JSON text
 * (metadata and codecs add a little; callers keep a margin). `undefined` counts as 0.
 */
export function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : utf8Length(text);
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, never splitting a surrogate pair. */
export function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const pair = code >= 0xd800 && code <= 0xdbff && i + 1 < text.length;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) return text.slice(0, i);
    bytes += size;
    if (pair) i++;
  }
  return text;
}
