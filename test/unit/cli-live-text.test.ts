// How `watch` prints a run's stream: the model's text written out as its pieces come, a marker line when a retried
// model call starts its step over, the recorded event lines otherwise, and nothing repeated when a watch resumes.
// Crafted stream parts; no server.
import { describe, expect, it } from 'vitest';
import type { RunStreamPart } from '../../src/client/run-stream.js';
import { createEventFormatter } from '../../src/cli/format.js';
import { printedParts, RunPrinter, type WatchPosition } from '../../src/cli/live-text.js';
import type { RunEventBody } from '../../src/protocol/index.js';
import { wireParts } from '../support/delta-parts.js';

function stream() {
  const parts: RunStreamPart[] = [];
  let seq = 0;
  const api = {
    parts,
    event(body: RunEventBody) {
      parts.push({
        type: 'event',
        offset: parts.length,
        event: { ...body, seq: ++seq, at: '2026-12-01T10:11:12.000Z' } as never,
      });
      return api;
    },
    deltas(step: number, attempt: number, ...texts: string[]) {
      const pieces = wireParts(texts.map((text) => ({ id: 't', kind: 'text', text })));
      parts.push({ type: 'deltas', offset: parts.length, deltas: { type: 'deltas', step, attempt, parts: pieces } });
      return api;
    },
    reset(step: number, attempt: number) {
      parts.push({ type: 'deltas', offset: parts.length, deltas: { type: 'reset-step', step, attempt } });
      return api;
    },
  };
  return api;
}

async function* replay(parts: RunStreamPart[], until = parts.length): AsyncGenerator<RunStreamPart> {
  for (const part of parts.slice(0, until)) yield await Promise.resolve(part);
}

async function print(
  parts: RunStreamPart[],
  printer = new RunPrinter({ format: createEventFormatter() }),
  position: WatchPosition = { lastSeq: 0, lastOffset: -1 },
  until?: number,
): Promise<string> {
  let out = '';
  for await (const printed of printedParts(replay(parts, until), printer, position)) out += printed.text;
  return out;
}

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

const lateListing: RunEventBody = {
  type: 'mcp-tools-listed',
  server: 'crm',
  version: '1',
  tools: 3,
  skipped: 0,
  late: true,
};
/** The line the formatter writes for the late listing as event `seq`. */
const listingLine = (seq: number) =>
  `${createEventFormatter()({ ...lateListing, seq, at: '2026-12-01T10:11:12.000Z' } as never)}\n`;

describe('watch: the model’s text as it is written', () => {
  it('writes the pieces on one live line that the recorded text completes; other events as lines', async () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, 'The weather ')
      .deltas(1, 1, 'is fine.\nBye')
      .event({ type: 'text', step: 1, text: 'The weather is fine.\nBye.' })
      .event({ type: 'step-finished', step: 1, finishReason: 'stop', usage });
    expect(await print(run.parts)).toBe(
      '#1   step 1\n' +
        '#2   model says: The weather is fine.\n    Bye.\n' +
        '#3   step 1 done · stop · 2 tokens (1 in, 1 out)\n',
    );
  });

  it('without deltas (streaming off, older runs) prints the text event’s line as before', async () => {
    const run = stream().event({ type: 'step-started', step: 1 }).event({ type: 'text', step: 1, text: 'Whole.' });
    expect(await print(run.parts)).toBe('#1   step 1\n#2   model says: Whole.\n');
  });

  it('a retried model call that writes the same words goes on where the screen is, with no word twice', async () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, 'Hello wo')
      .reset(1, 2)
      .deltas(1, 2, 'Hel')
      .deltas(1, 2, 'lo world.')
      .event({ type: 'text', step: 1, text: 'Hello world.' });
    expect(await print(run.parts)).toBe('#1   step 1\n#2   model says: Hello world.\n');
  });

  it('a retried model call that writes other words: a marker line, then the new attempt’s text', async () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, 'Hello wo')
      .reset(1, 2)
      .deltas(1, 2, 'Hi there.')
      .event({ type: 'text', step: 1, text: 'Hi there.' });
    expect(await print(run.parts)).toBe(
      '#1   step 1\n' +
        '#2   model says: Hello wo\n' +
        '↺ the model call of step 1 is retried (attempt 2): its text so far is void\n' +
        '#2   model says: Hi there.\n',
    );
  });

  it('a retry that ends while it still repeats the screen shows the recorded text when it differs', async () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, 'Hello world, and more')
      .reset(1, 2)
      .deltas(1, 2, 'Hello world')
      .event({ type: 'text', step: 1, text: 'Hello world' });
    expect(await print(run.parts)).toBe(
      '#1   step 1\n' +
        '#2   model says: Hello world, and more\n' +
        '↺ step 1 as recorded:\n' +
        '#2   model says: Hello world\n',
    );
  });

  it('keeps escape sequences out of the terminal, even split across pieces', async () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, 'red\u001b', '[31mtext\u009b2J', '\u202ebidi\r')
      .event({ type: 'text', step: 1, text: 'red\u001b[31mtext\u009b2J\u202ebidi\r' });
    const out = await print(run.parts);
    expect(out).toBe('#1   step 1\n#2   model says: red[31mtextbidi\n');
    // eslint-disable-next-line no-control-regex
    expect(out).not.toMatch(/[\u001b\u009b\u202e\r]/);
  });

  it('a watch that resumes (after an outage, or --after) prints only what it had not printed', async () => {
    const run = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, 'One, ')
      .deltas(1, 1, 'two, ')
      .deltas(1, 1, 'three.')
      .event({ type: 'text', step: 1, text: 'One, two, three.' })
      .event({ type: 'step-finished', step: 1, finishReason: 'stop', usage });
    const printer = new RunPrinter({ format: createEventFormatter() });
    const position: WatchPosition = { lastSeq: 0, lastOffset: -1 };
    // The first read stops after "two, " (a worker went away); the next reads the stream from its start again.
    const first = (await print(run.parts, printer, position, 3)) + printer.close();
    const second = await print(run.parts, printer, position);
    expect(first).toBe('#1   step 1\n#2   model says: One, two, \n');
    expect(second).toBe('#2   model says (continued): three.\n#3   step 1 done · stop · 2 tokens (1 in, 1 out)\n');
    // --after 2: the text event is past, so its pieces are too.
    expect(await print(run.parts, undefined, { lastSeq: 2, lastOffset: -1 })).toBe(
      '#3   step 1 done · stop · 2 tokens (1 in, 1 out)\n',
    );
  });

  it('numbers a live line with the event its text becomes, and renumbers when another event came first', async () => {
    // An event recorded while the model writes ends the live line; the text goes on, numbered after it.
    const between = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, 'Hello ')
      .event(lateListing)
      .deltas(1, 1, 'world.')
      .event({ type: 'text', step: 1, text: 'Hello world.' });
    expect(await print(between.parts)).toBe(
      '#1   step 1\n#2   model says: Hello \n' + listingLine(2) + '#3   model says (continued): world.\n',
    );
    // One recorded after the model's last piece but before its text: the text's own number gets a line.
    const after = stream()
      .event({ type: 'step-started', step: 1 })
      .deltas(1, 1, 'Hello.')
      .event(lateListing)
      .event({ type: 'text', step: 1, text: 'Hello.' });
    expect(await print(after.parts)).toBe(
      '#1   step 1\n#2   model says: Hello.\n' +
        listingLine(2) +
        "#3   (the model's text of step 1 above, as recorded)\n",
    );
  });

  it('says the live stream is unavailable, then the recorded text completes the live line', async () => {
    const run = stream().event({ type: 'step-started', step: 1 }).deltas(1, 1, 'Sunny in ');
    run.parts.push({ type: 'live-unavailable', offset: run.parts.length, reason: 'Redis is down' });
    run.event({ type: 'text', step: 1, text: 'Sunny in Oslo.' });
    expect(await print(run.parts)).toBe(
      '#1   step 1\n' +
        '#2   model says: Sunny in \n' +
        "(the run's live stream is unavailable (Redis is down): its events follow from the run)\n" +
        '#2   model says (continued): Oslo.\n',
    );
  });
});
