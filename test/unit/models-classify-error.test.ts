import { APICallError, InvalidPromptError } from '@ai-sdk/provider';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { classifyModelError, isAbortError, retryAfterMs } from '../../src/models/classify-model-error.js';
import { MissingApiKeyError } from '../../src/models/errors/missing-api-key-error.js';
import { ScriptedModelExhaustedError } from '../../src/models/errors/scripted-model-exhausted-error.js';
import { registerSecret } from '../../src/secrets/redact-secrets.js';

function httpError(statusCode: number | undefined, responseHeaders?: Record<string, string>): APICallError {
  return new APICallError({
    message: `status ${statusCode}`,
    url: 'https://api.example.test/v1/chat/completions',
    requestBodyValues: {},
    statusCode,
    responseHeaders,
    responseBody: '{"error":{"message":"nope"}}',
  });
}

describe('classifyModelError', () => {
  it.each([
    [429, 'Model.RateLimited', false],
    [500, 'Model.ServerError', false],
    [502, 'Model.ServerError', false],
    [503, 'Model.ServerError', false],
    [408, 'Model.Timeout', false],
    [400, 'Model.BadRequest', true],
    [413, 'Model.BadRequest', true],
    [422, 'Model.BadRequest', true],
    [401, 'Model.AuthenticationFailed', true],
    [403, 'Model.AuthenticationFailed', true],
    [404, 'Model.NotFound', true],
    [undefined, 'Model.Network', false],
  ])('HTTP %s → %s (nonRetryable %s)', (status, type, nonRetryable) => {
    const failure = classifyModelError(httpError(status));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure.type).toBe(type);
    expect(failure.nonRetryable).toBe(nonRetryable);
    // History records a redacted copy of the provider's error (name, message, stack), not the error itself.
    expect(failure.cause).toMatchObject({ name: 'AI_APICallError', message: `status ${status}` });
  });

  it('redacts the provider key from the message, the body excerpt, the URL and the cause it records', () => {
    const key = 'sk-canary-classify-7d1e4b9a';
    registerSecret(key);
    const echoed = new APICallError({
      message: `Incorrect API key provided: ${key}`,
      url: `https://user:${key}@api.example.test/v1/chat/completions?key=${key}`,
      requestBodyValues: {},
      statusCode: 401,
      responseHeaders: { 'x-echo-authorization': `Bearer ${key}` },
      responseBody: JSON.stringify({ error: { message: `Incorrect API key provided: ${key}` } }),
      cause: new Error(`inner ${key}`),
    });
    const failure = classifyModelError(echoed);
    expect(failure.message).toBe('Incorrect API key provided: [REDACTED]');
    expect(failure.details).toEqual([
      {
        statusCode: 401,
        url: 'https://api.example.test/v1/chat/completions?[REDACTED]',
        responseBody: '{"error":{"message":"Incorrect API key provided: [REDACTED]"}}',
      },
    ]);
    expect(failure.cause?.stack).toContain('Incorrect API key provided: [REDACTED]');
    expect(failure.cause?.cause).toMatchObject({ message: 'inner [REDACTED]' });
    const recorded = JSON.stringify([failure.message, failure.stack, failure.details, failure.cause?.stack]);
    expect(recorded).not.toContain(key);
    expect(recorded).not.toContain('x-echo-authorization');
  });

  it('sets nextRetryDelay from retry-after seconds, retry-after-ms and an HTTP date', () => {
    expect(classifyModelError(httpError(429, { 'retry-after': '2' })).nextRetryDelay).toBe(2000);
    expect(classifyModelError(httpError(503, { 'retry-after-ms': '350.5' })).nextRetryDelay).toBe(351);
    const date = new Date(Date.now() + 30_000).toUTCString();
    const fromDate = classifyModelError(httpError(429, { 'Retry-After': date })).nextRetryDelay as number;
    expect(fromDate).toBeGreaterThan(25_000);
    expect(fromDate).toBeLessThanOrEqual(30_000);
    expect(classifyModelError(httpError(429)).nextRetryDelay).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
  });

  it('never sets a retry delay on a non-retryable failure', () => {
    expect(classifyModelError(httpError(400, { 'retry-after': '5' })).nextRetryDelay).toBeUndefined();
  });

  it('treats socket errors as retryable Model.Network', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifyModelError(new TypeError('fetch failed', { cause: reset })).type).toBe('Model.Network');
  });

  it('marks configuration mistakes and an exhausted script non-retryable', () => {
    const missingKey = new MissingApiKeyError({ provider: 'openai', envVar: 'OPENAI_API_KEY', modelRef: 'openai/x' });
    expect(classifyModelError(missingKey)).toMatchObject({ type: 'Model.Configuration', nonRetryable: true });
    const exhausted = new ScriptedModelExhaustedError({ modelId: 's', callIndex: 2, stepCount: 2, lastUserText: '' });
    expect(classifyModelError(exhausted)).toMatchObject({ type: 'Model.ScriptExhausted', nonRetryable: true });
    const prompt = new InvalidPromptError({ prompt: [], message: 'bad prompt' });
    expect(classifyModelError(prompt)).toMatchObject({ type: 'Model.BadRequest', nonRetryable: true });
  });

  it('unwraps a RetryError to its last error and passes an ApplicationFailure through', () => {
    const wrapped = new RetryError({ message: 'failed', reason: 'maxRetriesExceeded', errors: [httpError(429)] });
    expect(classifyModelError(wrapped).type).toBe('Model.RateLimited');
    const own = ApplicationFailure.create({ type: 'Custom', nonRetryable: true });
    expect(classifyModelError(own)).toBe(own);
  });

  it('classifies anything else as retryable Model.Error', () => {
    expect(classifyModelError(new Error('boom'))).toMatchObject({ type: 'Model.Error', nonRetryable: false });
    expect(classifyModelError('a string')).toMatchObject({ type: 'Model.Error', message: 'a string' });
  });
});

describe('isAbortError', () => {
  it('recognises aborts by the signal or by the error', () => {
    const controller = new AbortController();
    expect(isAbortError(new Error('x'), controller.signal)).toBe(false);
    controller.abort();
    expect(isAbortError(new Error('x'), controller.signal)).toBe(true);
    expect(isAbortError(new DOMException('aborted', 'AbortError'))).toBe(true);
    expect(isAbortError(new CancelledFailure('cancelled'))).toBe(true);
    expect(isAbortError(httpError(500))).toBe(false);
  });
});
