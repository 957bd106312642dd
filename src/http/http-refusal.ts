import { DurableAgentError } from '../errors/durable-agent-error.js';
import type { RefusalCode } from '../protocol/refusal-codes.js';
import { REFUSAL_STATUS } from './refusal-status.js';

const MARKER = Symbol.for('durable-agent.error.HttpRefusal');

/**
 * A request the HTTP handler refuses, with its HTTP status and a stable code (docs/errors.md): answered as
 * `{ "error": { "code", "message" } }`. The message is written for the caller and holds no secret.
 */
export class HttpRefusal extends DurableAgentError {
  private readonly [MARKER] = true;

  constructor(
    readonly status: number,
    code: string,
    message: string,
  ) {
    super({ code, message });
    this.name = 'HttpRefusal';
  }

  /** A refusal with `code`'s status in the one table every route uses ({@link REFUSAL_STATUS}). */
  static of(code: RefusalCode, message: string): HttpRefusal {
    return new HttpRefusal(REFUSAL_STATUS[code], code, message);
  }

  /** True for an {@link HttpRefusal} from any copy of this package or realm. */
  static override isInstance(value: unknown): value is HttpRefusal {
    return DurableAgentError.hasMarker(value, MARKER);
  }
}

/** The JSON answer of a refused request. */
export function refusalResponse(refusal: HttpRefusal, headers: HeadersInit = {}): Response {
  return Response.json(
    { error: { code: refusal.code, message: refusal.message } },
    { status: refusal.status, headers: { 'cache-control': 'no-store', ...headers } },
  );
}
