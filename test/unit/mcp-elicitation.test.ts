import { describe, expect, it } from 'vitest';
import {
  ELICITATION_LIMITS,
  normalizeElicitationRequest,
  validateElicitationAnswer,
} from '../../src/mcp/elicitation.js';
import { UserInputBridge } from '../../src/mcp/user-input-bridge.js';
import { createRedactor } from '../../src/mcp/secrets.js';
import { captureLogs, messagesAt } from './support/log-capture.js';

const logs = captureLogs();
const schema = {
  type: 'object',
  description: 'Confirm deletion?',
  properties: {
    name: { type: 'string', minLength: 1, description: 'Your name' },
    age: { type: 'integer', minimum: 0 },
    email: { type: 'string', format: 'email' },
    colors: { type: 'array', items: { type: 'string', enum: ['red', 'blue'] } },
  },
  required: ['name'],
};

describe('UserInputBridge', () => {
  it('chains setHandler, once and removeHandler and reports its handler', () => {
    const bridge = new UserInputBridge();
    const handler = () => ({ action: 'decline' as const });
    expect(bridge.setHandler(handler)).toBe(bridge);
    expect(bridge.hasHandler).toBe(true);
    expect(bridge.getHandler()).toBe(handler);
    expect(bridge.removeHandler()).toBe(bridge);
    expect(bridge.hasHandler).toBe(false);
    expect(bridge.once(handler)).toBe(bridge);
    expect(bridge.hasHandler).toBe(true);
  });

  it('cancels with a warning when no handler is registered', async () => {
    const answer = await new UserInputBridge().processRequest({ message: 'Sure?', requestedSchema: schema });
    expect(answer).toEqual({ action: 'cancel' });
    expect(messagesAt(logs, 'warn')).toContain('No user input handler registered, cancelling request');
  });

  it('cancels with an error log when the handler throws', async () => {
    const bridge = new UserInputBridge().setHandler(() => {
      throw new Error('ui crashed');
    });
    expect(await bridge.processRequest({ message: 'Sure?', requestedSchema: schema })).toEqual({ action: 'cancel' });
    expect(messagesAt(logs, 'error')).toContain('Error processing user input request');
  });

  it('once: the handler answers one request, the next is cancelled', async () => {
    const bridge = new UserInputBridge().once(() => ({ action: 'accept', content: { name: 'Ann' } }));
    expect(await bridge.processRequest({ message: 'a', requestedSchema: schema })).toEqual({
      action: 'accept',
      content: { name: 'Ann' },
    });
    expect(bridge.hasHandler).toBe(false);
    expect(await bridge.processRequest({ message: 'b', requestedSchema: schema })).toEqual({ action: 'cancel' });
  });

  it('replaces a blank message by the schema description, else the first field description or title', async () => {
    const seen: string[] = [];
    const bridge = new UserInputBridge().setHandler((request) => {
      seen.push(request.message);
      return { action: 'decline' };
    });
    await bridge.processRequest({ message: '  ', requestedSchema: schema });
    await bridge.processRequest({
      message: '',
      requestedSchema: { type: 'object', properties: { a: { type: 'string', description: ' Field A ' } } },
    });
    await bridge.processRequest({
      message: '',
      requestedSchema: { type: 'object', properties: { a: { type: 'string', title: 'Title A' } } },
    });
    expect(seen).toEqual(['Confirm deletion?', 'Field A', 'Title A']);
  });
});

describe('validateElicitationAnswer', () => {
  it('accepts content matching the requested schema, formats included', () => {
    const answer = { action: 'accept', content: { name: 'Ann', age: 30, email: 'ann@example.com', colors: ['red'] } };
    expect(validateElicitationAnswer(schema, answer)).toEqual({ ok: true, answer });
  });

  it('fills omitted fields with their schema defaults before checking (SEP-1034)', () => {
    const withDefaults = {
      type: 'object',
      properties: { name: { type: 'string', default: 'John' }, age: { type: 'integer', default: 30 } },
      required: ['name'],
    };
    expect(validateElicitationAnswer(withDefaults, { action: 'accept', content: { age: 5 } })).toEqual({
      ok: true,
      answer: { action: 'accept', content: { age: 5, name: 'John' } },
    });
  });

  it('refuses content that does not match, saying why', () => {
    const missing = validateElicitationAnswer(schema, { action: 'accept', content: { age: 3 } });
    expect(missing).toMatchObject({ ok: false });
    expect(!missing.ok && missing.problem).toMatch(/name/);
    expect(
      validateElicitationAnswer(schema, { action: 'accept', content: { name: 'A', email: 'not-an-email' } }),
    ).toMatchObject({ ok: false });
    expect(validateElicitationAnswer(schema, { action: 'accept', content: { name: 'A', age: -1 } })).toMatchObject({
      ok: false,
    });
    expect(validateElicitationAnswer(schema, { action: 'accept', content: { name: { nested: true } } })).toMatchObject({
      ok: false,
    });
  });

  it('drops content from decline and cancel; refuses unknown actions and oversized content', () => {
    expect(validateElicitationAnswer(schema, { action: 'decline', content: { name: 'x' } })).toEqual({
      ok: true,
      answer: { action: 'decline' },
    });
    expect(validateElicitationAnswer(schema, { action: 'cancel' })).toEqual({ ok: true, answer: { action: 'cancel' } });
    expect(validateElicitationAnswer(schema, { action: 'maybe' })).toMatchObject({ ok: false });
    expect(validateElicitationAnswer(schema, null)).toMatchObject({ ok: false });
    const big = 'x'.repeat(ELICITATION_LIMITS.contentBytes);
    expect(validateElicitationAnswer(schema, { action: 'accept', content: { name: big } })).toMatchObject({
      ok: false,
    });
  });
});

describe('normalizeElicitationRequest', () => {
  it('bounds the message, refuses oversized schemas and other modes, and redacts secrets', () => {
    const redactor = createRedactor(['secret-token-1']);
    const long = normalizeElicitationRequest('srv', { message: 'm'.repeat(10_000), requestedSchema: schema });
    expect(typeof long !== 'string' && long.message.length).toBe(ELICITATION_LIMITS.messageChars);
    const properties = Object.fromEntries(
      Array.from({ length: 2000 }, (_, i) => [`f${i}`, { type: 'string', description: 'd'.repeat(20) }]),
    );
    expect(
      normalizeElicitationRequest('srv', { message: 'x', requestedSchema: { type: 'object', properties } }),
    ).toMatch(/over the limit/);
    expect(normalizeElicitationRequest('srv', { message: 'x', mode: 'url', requestedSchema: schema })).toMatch(
      /not supported/,
    );
    const redacted = normalizeElicitationRequest(
      'srv',
      { message: 'token secret-token-1?', requestedSchema: schema },
      redactor,
    );
    expect(redacted).toMatchObject({ serverName: 'srv', message: 'token [REDACTED]?', mode: 'form' });
  });
});
