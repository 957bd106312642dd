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
});
