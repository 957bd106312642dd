import { describe, expect, it } from 'vitest';
import {
  jsonBytes,
  readTranscript,
  serveTranscriptPage,
  utf8Length,
  type TranscriptMessage,
  type TranscriptSlice,
} from '../../src/protocol/index.js';

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

describe('serveTranscriptPage', () => {
  const answer = { runId: 'r', run };
  const euros = (id: string, n: number): TranscriptMessage => ({
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: id, toolName: 't', output: { type: 'text', value: '€'.repeat(n) } }],
  });

  it('pages by UTF-8 bytes, not string length', () => {
    // Three messages of 300k '€': 900k UTF-16 units together (one page by length), but 2.7 MB of UTF-8.
    const messages = [euros('a', 300_000), euros('b', 300_000), euros('c', 300_000)];
    const page = serveTranscriptPage(messages, { from: 0 }, answer);
    expect(page.messages).toHaveLength(1);
    expect(jsonBytes(page)).toBeLessThan(2_000_000);
  });

  it('splits a message larger than a page into pieces of its parts, each under the payload limit', () => {
    const big: TranscriptMessage = {
      role: 'tool',
      content: ['a', 'b'].map((id) => ({
        type: 'tool-result' as const,
        toolCallId: id,
        toolName: 't',
        output: { type: 'text' as const, value: '€'.repeat(495_000) },
      })),
    };
    const first = serveTranscriptPage([big], { from: 0 }, answer);
    expect(first.piece).toMatchObject({ fromPart: 0, totalParts: 2 });
    expect(first.piece!.parts).toHaveLength(1);
    expect(jsonBytes(first)).toBeLessThan(2_000_000);
    const second = serveTranscriptPage([big], { from: 0, fromPart: 1 }, answer);
    expect(second.piece!.parts).toHaveLength(1);
  });

  it('round-trips any transcript through readTranscript, whatever the page size', async () => {
    const messages: TranscriptMessage[] = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'ü'.repeat(300) },
      euros('x', 200),
      {
        role: 'tool',
        content: ['p', 'q', 'r'].map((id) => ({
          type: 'tool-result' as const,
          toolCallId: id,
          toolName: 't',
          output: { type: 'json' as const, value: { text: '✓'.repeat(150) } },
        })),
      },
      { role: 'assistant', content: 'done' },
    ];
    for (const pageBytes of [1, 100, 500, 1_000, 100_000]) {
      const read = await readTranscript(
        async (from, to, fromPart) =>
          serveTranscriptPage(messages, { from, ...(to !== undefined ? { to } : {}), fromPart }, answer, pageBytes),
        0,
      );
      expect(read.messages).toEqual(messages);
    }
  });
});

describe('utf8Length', () => {
  it('counts UTF-8 bytes like Buffer.byteLength', () => {
    for (const text of ['', 'abc', 'é', '€', '𝄞', 'a€𝄞é', '\ud800', '\udc00x', 'x\ud83d']) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(Buffer.byteLength(text, 'utf8'));
    }
  });
});
