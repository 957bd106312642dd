import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal } from './http-refusal.js';

/**
 * The request's body as JSON, read up to `maxBytes` (UTF-8 bytes on the wire): a larger one is refused as soon as
 * its `content-length` or its bytes pass the bound, without reading the rest. One nested deeper than
 * {@link MAX_JSON_DEPTH} is refused before it is parsed (`Input.TooLarge`).
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw HttpRefusal.of(
      RefusalCode.HttpWrongContentType,
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
  // Everything after the parse (schemas, sizes, copies) recurses into the value: its depth is bounded first.
  if (depthOver(text, MAX_JSON_DEPTH)) {
    throw HttpRefusal.of(
      RefusalCode.InputTooLarge,
      `The request body nests deeper than ${MAX_JSON_DEPTH} levels: send a flatter value.`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw malformed('the body is not valid JSON');
  }
}

/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests arrays and objects deeper than `max`, by one pass over it (strings skipped). */
function depthOver(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

function tooLarge(maxBytes: number): HttpRefusal {
  return HttpRefusal.of(
    RefusalCode.InputTooLarge,
    `The request body is over ${maxBytes} bytes (maxBodyBytes): send fewer or shorter messages.`,
  );
}

/** A body that is not what the route expects; `what` says what is wrong. */
export function malformed(what: string): HttpRefusal {
  return HttpRefusal.of(RefusalCode.InputMalformed, `Malformed request: ${what}.`);
}
