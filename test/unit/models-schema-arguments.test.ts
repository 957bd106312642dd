import { describe, expect, it } from 'vitest';
import { synthesizeArguments } from '../../src/models/schema-arguments.js';

describe('offline argument synthesis', () => {
  const emailSchema = {
    type: 'object' as const,
    properties: { to: { type: 'string' as const }, subject: { type: 'string' as const } },
    required: ['to', 'subject'],
  };

  it('takes an email address from the message for address fields, and a quoted text for the others', () => {
    const args = synthesizeArguments(emailSchema, {
      message: 'Check the weather in Paris and email "Paris weather update" to team@example.com.',
      toolWords: ['send', 'email'],
    });
    expect(args).toEqual({ to: 'team@example.com', subject: 'Paris weather update' });
  });

  it('falls back to names when the message has no address', () => {
    const args = synthesizeArguments(emailSchema, { message: 'Write to Ada about "lunch"', toolWords: ['send'] });
    expect(args).toEqual({ to: 'Ada', subject: 'lunch' });
  });

  it('reads a hostile 100,000-character word in linear time (the address search once took ~25 s on it)', () => {
    const word = 'Q'.repeat(100_000);
    const started = performance.now();
    const args = synthesizeArguments(emailSchema, {
      message: `email ${word} to ana@example.com`,
      toolWords: ['email'],
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((args as { to: string }).to).toBe('ana@example.com');
  });

  it('fills a subject and a body from the earlier answer a follow-up refers to, the address from the message', () => {
    const schema = { ...emailSchema, properties: { ...emailSchema.properties, body: { type: 'string' as const } } };
    const earlier = { request: 'weather in Paris?', answer: 'get_weather: {"city":"Paris"}' };
    const args = synthesizeArguments(
      { ...schema, required: ['to', 'subject', 'body'] },
      { message: 'Email that to ana@example.com', toolWords: ['send', 'email'], earlier },
    );
    expect(args).toEqual({ to: 'ana@example.com', subject: 'Re: weather in Paris?', body: earlier.answer });
  });
});
