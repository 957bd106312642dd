// Text a client, a run or a server wrote reaches the terminal through the inline approval's rejection note: no
// escape sequence or bidirectional control may pass (the watch's `cause:` line goes through the same terminalSafe).
import { describe, expect, it } from 'vitest';
import type { AgentRun } from '../../src/client/agent-run.js';
import { RunRequestRejectedError } from '../../src/client/errors/run-request-rejected-error.js';
import { approvalAction, type InlineContext } from '../../src/cli/inline-actions.js';
import { createStyle } from '../../src/cli/style.js';
import type { RunEvent } from '../../src/protocol/index.js';

const HOSTILE = 'evil\u001b]0;pwned\u0007\u001b[2J\u202e';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('hostile text in the inline approval', () => {
  it("keeps the rejection's note inert", async () => {
    const written: string[] = [];
    const answers = ['n', 'because'];
    const run = {
      deny: () => Promise.reject(new RunRequestRejectedError(`Run 'r' refused: ${HOSTILE}`, { code: 'Run.Refused' })),
    } as unknown as AgentRun;
    const ctx: InlineContext = {
      run,
      prompter: {
        ask: () => Promise.resolve(answers.shift()),
        key: () => Promise.resolve(answers.shift()),
        close: () => {},
      } as unknown as InlineContext['prompter'],
      out: (text) => written.push(text),
      note: (text) => written.push(text),
      style: createStyle(false),
      person: undefined,
    };
    const event = { type: 'approval-requested', toolCallId: 'c', toolName: 'delete', args: {} } as unknown as Extract<
      RunEvent,
      { type: 'approval-requested' }
    >;
    await approvalAction.answer(event, ctx);
    expect(written.join('\n')).toMatch(/Not recorded: Run 'r' refused: evil/);
    expect(written.join('\n')).not.toMatch(CONTROL);
  });
});
