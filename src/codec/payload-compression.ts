// The gzip layer. Decompression is bounded: a payload of a few megabytes can inflate to gigabytes, and a workflow
// task decodes its history again on every replay.
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import { MAX_DECOMPRESSED_BYTES, ENCODING_GZIP } from './constants.js';
import { PayloadCodecError } from './payload-codec-error.js';

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);

/** Gzips serialized payload bytes. */
export async function compress(bytes: Uint8Array): Promise<Uint8Array> {
  return await gzipAsync(bytes);
}

/**
 * Gunzips a `binary/gzip` payload's data, refusing it once the output passes {@link MAX_DECOMPRESSED_BYTES}: zlib
 * stops there, so no more than that is ever held in memory.
 */
export async function decompress(data: Uint8Array): Promise<Uint8Array> {
  try {
    return await gunzipAsync(data, { maxOutputLength: MAX_DECOMPRESSED_BYTES });
  } catch (cause) {
    if ((cause as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PayloadCodecError(
        'Codec.DecompressedTooLarge',
        `Refused a '${ENCODING_GZIP}' payload of ${data.length} bytes that inflates past ` +
          `${MAX_DECOMPRESSED_BYTES} bytes: this codec never writes one (it does not compress payloads that large), ` +
          `so it is corrupt or hostile (a decompression bomb).`,
      );
    }
    throw new PayloadCodecError('Codec.MalformedPayload', `A '${ENCODING_GZIP}' payload is not valid gzip.`, { cause });
  }
}
