// Workflow-safe (no imports): what a worker's workflow code receives in place of a payload its codec refused, and
// how to recognise it. See `workerPayloadCodec`.

/** The key of the object a workflow task receives in place of a refused payload. */
export const REFUSED_PAYLOAD_KEY = '$durableAgentRefusedPayload';

/** Why a payload was refused: the `PayloadCodecError` code and message. */
export interface RefusedPayload {
  code: string;
  message: string;
}

/** The value that stands in for a refused payload: `{ $durableAgentRefusedPayload: { code, message } }`. */
export type RefusedPayloadValue = { [REFUSED_PAYLOAD_KEY]: RefusedPayload };

/**
 * The refusal, when `value` (a workflow argument, signal or update argument) stands in for a payload the worker's
 * codec refused; otherwise undefined. Signal handlers that ignore malformed input ignore it already; use this to
 * say why.
 */
export function refusedPayloadOf(value: unknown): RefusedPayload | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, REFUSED_PAYLOAD_KEY)) return undefined;
  const refusal = (value as Record<string, unknown>)[REFUSED_PAYLOAD_KEY];
  if (typeof refusal !== 'object' || refusal === null) return undefined;
  const { code, message } = refusal as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : undefined;
}
