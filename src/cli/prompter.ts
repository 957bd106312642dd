// Asking a person a question in the terminal, one line per answer. Used by `watch` to decide a pending approval
// inline and by the demo's --interactive; anything else a run may wait for (an MCP elicitation) asks the same way.
import { createInterface, type Interface } from 'node:readline/promises';

/** A line-based question/answer channel with a person. */
export interface Prompter {
  /**
   * Writes `question` and resolves with the line typed (trimmed), or `undefined` when input ended (stdin
   * closed) or `signal` aborted: then nobody is there to ask any more.
   */
  ask(question: string): Promise<string | undefined>;
  /** Stops reading input. Safe to call more than once. */
  close(): void;
}

/** Where questions go: a terminal's stdout, or a test's capture. */
export interface PromptOutput {
  write(text: string): unknown;
}

/**
 * A prompter over `input` (stdin), writing questions to `output`. Reads lines without taking the terminal over
 * (no raw mode), so Ctrl-C stays a signal for the program, which aborts `signal`.
 */
export function createPrompter(input: NodeJS.ReadableStream, output: PromptOutput, signal?: AbortSignal): Prompter {
  let lines: Interface | undefined;
  let closed: Promise<undefined> | undefined;
  let ended = false;
  // Created on the first question: a watch that never asks never touches stdin (which would keep it open).
  const reader = () => {
    if (!lines) {
      const rl = createInterface({ input, terminal: false });
      closed = new Promise((resolve) =>
        rl.once('close', () => {
          ended = true;
          resolve(undefined);
        }),
      );
      lines = rl;
    }
    return { rl: lines, closed: closed! };
  };
  return {
    async ask(question) {
      if (ended || signal?.aborted) return undefined;
      const { rl, closed } = reader();
      output.write(question);
      try {
        const answer = await Promise.race([rl.question('', signal ? { signal } : {}), closed]);
        return answer?.trim();
      } catch {
        // Aborted (Ctrl-C): the caller sees the signal; there is no answer.
        return undefined;
      } finally {
        if (ended || signal?.aborted) output.write('\n');
      }
    },
    close() {
      lines?.close();
    },
  };
}
