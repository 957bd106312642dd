/** UTF-8 size of a string in bytes: the measure Temporal's payload limits use (never `string.length`). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
