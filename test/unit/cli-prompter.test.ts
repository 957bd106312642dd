// The terminal prompter: a key is read in raw mode (one key, no Enter) and the terminal is put back; lines and keys
// share what was typed, so nothing typed ahead is lost; piped input answers a key with its line's first character.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createPrompter } from '../../src/cli/prompter.js';

/** A terminal's stdin: a TTY whose raw mode is recorded. */
function tty() {
  const modes: boolean[] = [];
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    setRawMode: (raw: boolean) => {
      modes.push(raw);
      return input;
    },
  });
  let written = '';
  return { input, modes, output: { write: (text: string) => (written += text) }, written: () => written };
}

describe('the terminal prompter', () => {
  it('reads one key in raw mode without Enter, echoes it, then reads lines again', async () => {
    const term = tty();
    const prompter = createPrompter(term.input, term.output);
    const key = prompter.key('Approve? [y]es / [n]o ');
    term.input.write('N');
    expect(await key).toBe('n');
    expect(term.modes).toEqual([true, false]);
    expect(term.written()).toBe('Approve? [y]es / [n]o N\n');
    // Typed ahead: a line waits in the buffer for the next question.
    term.input.write('not to the team\n');
    expect(await prompter.ask('Reason: ')).toBe('not to the team');
    prompter.close();
  });

  it('Enter is an empty key; an escape sequence is one key; Ctrl-D ends', async () => {
    const term = tty();
    const prompter = createPrompter(term.input, term.output);
    term.input.write('\r');
    expect(await prompter.key('? ')).toBe('');
    term.input.write('\u001b[A');
    expect(await prompter.key('? ')).toBe('\u001b');
    term.input.write('\u0004');
    expect(await prompter.key('? ')).toBeUndefined();
    expect(term.modes).toEqual([true, false, true, false, true, false]);
    prompter.close();
  });

  it('from a pipe, a key is the first character of the next line; input that ends answers undefined', async () => {
    const input = new PassThrough();
    const prompter = createPrompter(input, { write: () => true });
    input.end('yes\nlast line');
    expect(await prompter.key('? ')).toBe('y');
    expect(await prompter.ask('? ')).toBe('last line');
    expect(await prompter.ask('? ')).toBeUndefined();
    expect(await prompter.key('? ')).toBeUndefined();
  });
});
