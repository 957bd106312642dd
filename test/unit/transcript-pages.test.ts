import { describe, expect, it } from 'vitest';
import { readTranscript, type TranscriptMessage, type TranscriptSlice } from '../../src/protocol/index.js';

const run = { context: {} };
const big: TranscriptMessage = {
  role: 'tool',
  content: ['a', 'b', 'c'].map((id) => ({
    type: 'tool-result' as const,
    toolCallId: id,
    toolName: 't',
    output: { type: 'text' as const, value: id },
  })),
};
const transcript: TranscriptMessage[] = [{ role: 'user', content: 'hi' }, big, { role: 'assistant', content: 'ok' }];

/** A query that pages one message at a time and splits the big one into single parts, like a run under load. */
async function query(from: number, _to: number | undefined, fromPart: number): Promise<TranscriptSlice> {
  const base = { runId: 'r', from, total: transcript.length, run };
  const message = transcript[from];
  if (message === big) {
    const parts = (big.content as unknown[]).slice(fromPart, fromPart + 1);
    return { ...base, messages: [], piece: { role: 'tool', fromPart, parts, totalParts: 3 } };
  }
  return { ...base, messages: message ? [message] : [] };
}

describe('readTranscript', () => {
  it('reads every page and joins a message that came in pieces', async () => {
    const page = await readTranscript(query, 0);
    expect(page.messages).toEqual(transcript);
    expect(page.run).toEqual(run);
  });

  it('stops at `to`', async () => {
    expect((await readTranscript(query, 1, 2)).messages).toEqual([big]);
  });
});
