import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal } from './http-refusal.js';

/**
 * The request's body as JSON, read up to `maxBytes` (UTF-8 bytes on the wire): a larger one is refused as soon as
 * its `content-length` or its bytes pass the bound, without reading the rest.
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpRefusal(
      415,
      RefusalCode.InputMalformed,
      'Send the body as JSON, with content-type: application/json.',
    );
  }
  if (!request.body) throw malformed('the body is empty');
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw malformed('the body is not valid JSON');
  }
}

function tooLarge(maxBytes: number): HttpRefusal {
  return new HttpRefusal(
    413,
    RefusalCode.InputTooLarge,
    `The request body is over ${maxBytes} bytes (maxBodyBytes): send fewer or shorter messages.`,
  );
}

/** A body that is not what the route expects; `what` says what is wrong. */
export function malformed(what: string): HttpRefusal {
  return new HttpRefusal(400, RefusalCode.InputMalformed, `Malformed request: ${what}.`);
}
