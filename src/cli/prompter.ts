// Asking a person a question in the terminal: a line per answer, or a single key for a choice (y/n/s). Used by
// `watch` to decide a pending approval inline and by the demo's --interactive; anything else a run may wait for (an
// MCP elicitation) asks the same way. Lines and keys come from one buffer of what was typed, so an answer typed
// ahead (or piped in) is never lost between the two.

/** A question/answer channel with a person. */
export interface Prompter {
  /**
   * Writes `question` and resolves with the line typed (trimmed), or `undefined` when input ended (stdin
   * closed) or `signal` aborted: then nobody is there to ask any more.
   */
  ask(question: string): Promise<string | undefined>;
  /**
   * Writes `question` and resolves with the key pressed (lower-cased; Enter is `''`), without waiting for Enter
   * when input is a terminal; from a pipe, the first character of the next line. `undefined` as for {@link ask}.
   */
  key(question: string): Promise<string | undefined>;
  /** Stops reading input. Safe to call more than once. */
  close(): void;
}

/** Where questions go: a terminal's stdout, or a test's capture. */
export interface PromptOutput {
  write(text: string): unknown;
}

/** Input that can be a terminal: `process.stdin`. */
type PromptInput = NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

const CTRL_C = '\u0003';
const CTRL_D = '\u0004';

/**
 * A prompter over `input` (stdin), writing questions to `output`. A line is read as the terminal gives it (cooked:
 * the terminal echoes and edits); a key is read in raw mode for that one key only, and echoed. Ctrl-C in raw mode is
 * a key, not a signal: it is passed on as SIGINT, so the program ends the way Ctrl-C always ends it.
 */
export function createPrompter(input: PromptInput, output: PromptOutput, signal?: AbortSignal): Prompter {
  let buffer = '';
  let ended = false;
  let started = false;
  let wake: (() => void) | undefined;
  const onData = (chunk: string | Buffer) => {
    buffer += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    wake?.();
  };
  const onEnd = () => {
    ended = true;
    wake?.();
  };
  const onAbort = () => wake?.();
  // Started on the first question: a watch that never asks never touches stdin (which would keep it open).
  const start = () => {
    if (started) return;
    started = true;
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('close', onEnd);
    signal?.addEventListener('abort', onAbort, { once: true });
    input.resume();
  };
  /** What `take` finds in the buffer, waiting for more input; undefined once input ended or `signal` aborted. */
  const next = async (take: () => string | undefined): Promise<string | undefined> => {
    start();
    for (;;) {
      const found = take();
      if (found !== undefined) return found;
      if (ended || signal?.aborted) return undefined;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  };
  const line = () => {
    const at = buffer.indexOf('\n');
    if (at === -1) {
      // The last line of a pipe may have no newline.
      if (!ended || buffer === '') return undefined;
      const last = buffer;
      buffer = '';
      return last;
    }
    const text = buffer.slice(0, at).replace(/\r$/, '');
    buffer = buffer.slice(at + 1);
    return text;
  };
  /** Nobody answers any more: input ended with nothing left in it, or `signal` aborted. */
  const gone = () => signal?.aborted === true || (ended && buffer === '');

  return {
    async ask(question) {
      if (gone()) return undefined;
      output.write(question);
      const answer = await next(line);
      // The next output starts on a line of its own.
      if (answer === undefined) output.write('\n');
      return answer?.trim();
    },
    async key(question) {
      if (gone()) return undefined;
      output.write(question);
      const raw = input.isTTY === true && typeof input.setRawMode === 'function';
      if (!raw) {
        const answer = await next(line);
        if (answer === undefined) output.write('\n');
        return answer === undefined ? undefined : (Array.from(answer.trim())[0]?.toLowerCase() ?? '');
      }
      input.setRawMode!(true);
      let pressed: string | undefined;
      try {
        pressed = await next(() => {
          if (buffer === '') return undefined;
          const first = Array.from(buffer)[0]!;
          // One key: what came with it (the rest of an escape sequence, keys typed on) is not an answer to anything.
          buffer = '';
          return first;
        });
      } finally {
        input.setRawMode!(false);
      }
      if (pressed === CTRL_C) {
        output.write('^C\n');
        process.kill(process.pid, 'SIGINT');
        return undefined;
      }
      if (pressed === undefined || pressed === CTRL_D) {
        output.write('\n');
        return undefined;
      }
      const enter = pressed === '\r' || pressed === '\n';
      // Echoed, since raw mode does not: the person sees what they chose.
      output.write(enter || pressed < ' ' ? '\n' : `${pressed}\n`);
      return enter ? '' : pressed.toLowerCase();
    },
    close() {
      if (!started) return;
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('close', onEnd);
      signal?.removeEventListener('abort', onAbort);
      input.pause();
      ended = true;
      wake?.();
    },
  };
}
