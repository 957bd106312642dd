// What an inbox shows of what the user asked: the last user message of a run's first input, its text only,
// whitespace collapsed, cut at 280 characters (by code point, so no emoji is split).
import { describe, expect, it } from 'vitest';
import { MAX_ASKED_CHARS, askedText } from '../../src/http/run-opening.js';

describe('askedText', () => {
  it('is a string input, whitespace collapsed', () => {
    expect(askedText({ input: '  Send the Q3 numbers\n\tto the board ' })).toBe('Send the Q3 numbers to the board');
  });

  it('is the last user message of a transcript input (a chat turn), its text parts joined', () => {
    const input = [
      { role: 'user' as const, content: 'Earlier question' },
      { role: 'assistant' as const, content: 'Earlier answer' },
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'Book a table' },
          { type: 'image' as const, image: 'data:image/png;base64,AAAA' },
          { type: 'text' as const, text: 'for two' },
        ],
      },
    ];
    expect(askedText({ input })).toBe('Book a table for two');
  });

  it('is cut at MAX_ASKED_CHARS code points with an ellipsis; absent without a user text', () => {
    const long = `${'🙂'.repeat(MAX_ASKED_CHARS - 1)}ab`;
    const asked = askedText({ input: long })!;
    expect(Array.from(asked)).toHaveLength(MAX_ASKED_CHARS + 1);
    expect(asked.endsWith('🙂a…')).toBe(true);
    expect(askedText({ input: '   ' })).toBeUndefined();
    expect(askedText({ input: [{ role: 'assistant', content: 'Only an answer' }] })).toBeUndefined();
  });
});
