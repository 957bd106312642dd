import {
  APICallError,
  EmptyResponseBodyError,
  InvalidArgumentError,
  InvalidPromptError,
  InvalidResponseDataError,
  JSONParseError,
  LoadAPIKeyError,
  LoadSettingError,
  NoContentGeneratedError,
  NoSuchModelError,
  TypeValidationError,
  UnsupportedFunctionalityError,
} from '@ai-sdk/provider';
import { ApplicationFailure } from '@temporalio/common';
import { RetryError, ToolChoiceViolationError } from 'ai';
import { InvalidModelIdError } from './errors/invalid-model-id-error.js';
import { MissingApiKeyError } from './errors/missing-api-key-error.js';
import { ScriptedModelExhaustedError } from './errors/scripted-model-exhausted-error.js';
import { UnknownProviderError } from './errors/unknown-provider-error.js';
import { redactSecrets } from '../secrets/redact-secrets.js';

/**
 * Failure types of a model call, as they cross the `generate` activity boundary. Stable strings (`Area.Reason`):
 * retry policies (`nonRetryableErrorTypes`) and clients match on them.
 */
export const ModelFailureType = {
  /** HTTP 429. Retryable, after the provider's `retry-after` when it sent one. */
  RateLimited: 'Model.RateLimited',
  /** HTTP 5xx. Retryable. */
  ServerError: 'Model.ServerError',
  /** No HTTP response: connection refused or reset, DNS, socket errors. Retryable. */
  Network: 'Model.Network',
  /** HTTP 408, or a request timeout. Retryable. */
  Timeout: 'Model.Timeout',
  /** A 2xx response the SDK could not use (malformed JSON, empty body, a forced tool not called). Retryable. */
  InvalidResponse: 'Model.InvalidResponse',
  /** Other HTTP 4xx, or a request the SDK refused to send (invalid prompt, unsupported feature). Not retryable. */
  BadRequest: 'Model.BadRequest',
  /** HTTP 401 or 403. Not retryable: a key does not fix itself. */
  AuthenticationFailed: 'Model.AuthenticationFailed',
  /** HTTP 404 (usually an unknown model id on that server). Not retryable. */
  NotFound: 'Model.NotFound',
  /** The worker cannot build the model: missing key, unknown provider, malformed model string. Not retryable. */
  Configuration: 'Model.Configuration',
  /** The response is too large to record in history. Not retryable: a retry would bill the same response again. */
  ResponseTooLarge: 'Model.ResponseTooLarge',
  /** A `ScriptedLanguageModel` ran out of steps. Not retryable, so the test fails at once. */
  ScriptExhausted: 'Model.ScriptExhausted',
  /** Anything else. Retryable: Temporal's retry policy bounds it. */
  Unknown: 'Model.Error',
} as const;

/** One of the {@link ModelFailureType} strings. */
export type ModelFailureTypeName = (typeof ModelFailureType)[keyof typeof ModelFailureType];

/**
 * True when `error` means the call was aborted — because the signal fired (`signal.aborted`), or because the error
 * is an abort (`AbortError`, or the activity's `CancelledFailure` that `fetch` rejects with when it is the
 * signal's reason). Such errors must reach Temporal unchanged: classifying them would turn a cancellation into an
 * ordinary failure and a retry.
 */
export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted) return true;
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'CancelledFailure');
}

/**
 * Turns an error from a model call into an `ApplicationFailure` with a stable type, `nonRetryable` where retrying
 * cannot help, and `nextRetryDelay` from the provider's `retry-after-ms` / `retry-after` headers. Temporal owns
 * retries (the provider SDK's are off), so this is where "retry or not, and when" is decided.
 *
 * Callers rethrow aborts unchanged before classifying (see {@link isAbortError}); {@link callModel} does. An
 * `ApplicationFailure` passes through as is.
 */
export function classifyModelError(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  // With retries off the SDK throws the original error, but a model wrapped elsewhere may still hand us a RetryError.
  if (RetryError.isInstance(error) && error.lastError !== undefined) return classifyModelError(error.lastError);

  const cause = error instanceof Error ? error : new Error(String(error));
  const message = redactSecrets(cause.message || String(error));

  if (APICallError.isInstance(error)) return classifyApiCallError(error);

  if (
    MissingApiKeyError.isInstance(error) ||
    UnknownProviderError.isInstance(error) ||
    InvalidModelIdError.isInstance(error)
  ) {
    return failure(ModelFailureType.Configuration, message, cause, { nonRetryable: true });
  }
  if (LoadAPIKeyError.isInstance(error) || LoadSettingError.isInstance(error) || NoSuchModelError.isInstance(error)) {
    return failure(ModelFailureType.Configuration, message, cause, { nonRetryable: true });
  }
  if (ScriptedModelExhaustedError.isInstance(error)) {
    return failure(ModelFailureType.ScriptExhausted, message, cause, { nonRetryable: true });
  }
  if (
    InvalidPromptError.isInstance(error) ||
    InvalidArgumentError.isInstance(error) ||
    UnsupportedFunctionalityError.isInstance(error)
  ) {
    return failure(ModelFailureType.BadRequest, message, cause, { nonRetryable: true });
  }
  if (
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error) ||
    // The model ignored a forced tool choice: another sample may well comply.
    ToolChoiceViolationError.isInstance(error)
  ) {
    return failure(ModelFailureType.InvalidResponse, message, cause, { nonRetryable: false });
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    return failure(ModelFailureType.Timeout, message, cause, { nonRetryable: false });
  }
  if (hasNetworkCode(error)) return failure(ModelFailureType.Network, message, cause, { nonRetryable: false });
  return failure(ModelFailureType.Unknown, message, cause, { nonRetryable: false });
}

function classifyApiCallError(error: APICallError): ApplicationFailure {
  const status = error.statusCode;
  // A provider (or a proxy in front of it) may echo the request's key back in its error body: redacted first.
  const responseBody = error.responseBody === undefined ? undefined : truncate(redactSecrets(error.responseBody));
  const details = { statusCode: status, url: redactUrl(error.url), responseBody };
  const message = redactSecrets(error.message);
  const retryDelay = retryAfterMs(error.responseHeaders);
  const retryable = (type: ModelFailureTypeName) =>
    failure(type, message, error, { nonRetryable: false, nextRetryDelay: retryDelay, details });
  const fatal = (type: ModelFailureTypeName) => failure(type, message, error, { nonRetryable: true, details });

  if (status === undefined) {
    // No HTTP status: the request never got an answer (connection refused, reset, DNS).
    return retryable(ModelFailureType.Network);
  }
  if (status === 429) return retryable(ModelFailureType.RateLimited);
  if (status >= 500) return retryable(ModelFailureType.ServerError);
  // 408 is the server saying the request took too long to arrive: transient, like a network error.
  if (status === 408) return retryable(ModelFailureType.Timeout);
  if (status === 401 || status === 403) return fatal(ModelFailureType.AuthenticationFailed);
  if (status === 404) return fatal(ModelFailureType.NotFound);
  if (status >= 400) return fatal(ModelFailureType.BadRequest);
  // A 2xx/3xx the SDK could not process (e.g. "Failed to process successful response").
  return retryable(ModelFailureType.InvalidResponse);
}

/**
 * The provider's requested delay in ms: `retry-after-ms` (OpenAI, fractional ms) first, then `retry-after` in
 * seconds or as an HTTP date. Undefined when absent or unreadable, so Temporal's backoff applies.
 */
export function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const lookup = (name: string) =>
    Object.entries(headers)
      .find(([key]) => key.toLowerCase() === name)?.[1]
      ?.trim() || undefined;
  const ms = lookup('retry-after-ms');
  if (ms !== undefined) {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.ceil(value);
  }
  const after = lookup('retry-after');
  if (after !== undefined) {
    const seconds = Number(after);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
    const date = Date.parse(after);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  return undefined;
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function hasNetworkCode(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (current instanceof TypeError && /fetch failed/i.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

function failure(
  type: ModelFailureTypeName,
  message: string,
  cause: Error,
  options: { nonRetryable: boolean; nextRetryDelay?: number; details?: Record<string, unknown> },
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: options.nonRetryable,
    ...(options.nextRetryDelay !== undefined ? { nextRetryDelay: options.nextRetryDelay } : {}),
    // Status and a bounded body excerpt help whoever reads the failure in the Temporal UI; never headers (keys).
    details: options.details ? [options.details] : undefined,
    cause: redactedCopy(cause, 0),
  });
}

// How many errors of a cause chain are recorded; the rest is cut.
const MAX_CAUSE_DEPTH = 4;

/**
 * What history records of an error: Temporal's failure converter writes the message, the stack and the cause
 * chain of every error, and a stack's first line repeats the message. So the recorded copy carries the name,
 * message and stack with secrets redacted, and nothing else of the original (its own properties never reach the
 * failure converter either way).
 */
function redactedCopy(error: unknown, depth: number): Error | undefined {
  if (!(error instanceof Error) || depth >= MAX_CAUSE_DEPTH) return undefined;
  const next = redactedCopy(error.cause, depth + 1);
  const copy = new Error(redactSecrets(error.message), next ? { cause: next } : undefined);
  copy.name = error.name;
  copy.stack = error.stack === undefined ? undefined : redactSecrets(error.stack);
  return copy;
}

/** The URL without credentials or query string (where some providers take their key). */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}${parsed.search ? '?[REDACTED]' : ''}`;
  } catch {
    return redactSecrets(url);
  }
}

function truncate(text: string | undefined, max = 2000): string | undefined {
  if (text === undefined) return undefined;
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
