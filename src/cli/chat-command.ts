// `durable-agent chat <agent> [--conversation id]`: a terminal chat over a durable conversation. Each line typed is a
// turn; its events stream as `watch` prints them, and approvals and elicitations are asked inline. Leaving keeps the
// conversation: `--conversation <id>` rejoins it.
import { randomUUID } from 'node:crypto';
import type { AgentRun } from '../client/agent-run.js';
import type { Conversation } from '../client/conversation.js';
import type { TranscriptMessage } from '../protocol/index.js';
import type { Command } from './args.js';
import { CliFailure } from './errors/cli-failure.js';
import type { CommandContext } from './run-command.js';
import { shellQuote, terminalSafe, terminalSafeLine } from './terminal-text.js';
import { CLI_COMMAND } from './usage.js';

/** Messages shown when rejoining a conversation. */
const REJOIN_TAIL = 6;

type Watch = (run: AgentRun, after: number, ctx: CommandContext) => Promise<number>;

/** Runs the chat until the person leaves (empty line, /exit, end of input) or ends it (/end). Exit status 0. */
export async function chat(
  command: Extract<Command, { name: 'chat' }>,
  ctx: CommandContext,
  watch: Watch,
  person: string | undefined,
): Promise<number> {
  const { prompter, style } = ctx;
  if (!prompter) throw new CliFailure('chat reads messages from stdin: run it in a terminal, or pipe lines into it.');
  const id = command.conversationId ?? `chat-${command.agent}-${randomUUID()}`;
  const userId = command.userId ?? person;
  const conversation = ctx.client.conversation(id, { agent: command.agent, ...(userId ? { userId } : {}) });
  ctx.out(`Conversation ${style.bold(terminalSafeLine(id))} with agent '${terminalSafeLine(command.agent)}'.`);
  if (command.conversationId !== undefined) await showTail(conversation, ctx);
  ctx.out(style.dim('Type a message. An empty line, /exit or Ctrl-D leaves (the conversation stays); /end ends it.'));
  let status = 0;
  for (;;) {
    const line = await prompter.ask(`${style.bold('you>')} `);
    if (line === undefined || line === '' || line === '/exit') break;
    if (line === '/end') {
      await conversation.end();
      ctx.out(`Conversation ${terminalSafeLine(id)} ended.`);
      return 0;
    }
    const turn = await conversation.send(line);
    if (turn.position) ctx.out(style.dim(`Queued behind ${turn.position} turn(s).`));
    status = await watch(turn, 0, ctx);
    if (ctx.signal?.aborted) return status;
  }
  ctx.out(style.dim(`Rejoin: ${CLI_COMMAND} chat ${shellQuote(command.agent)} --conversation ${shellQuote(id)}`));
  return status === 130 ? status : 0;
}

/** The conversation's last messages, read from its history (no worker needed). */
async function showTail(conversation: Conversation, ctx: CommandContext): Promise<void> {
  const messages: (TranscriptMessage & { turn: number })[] = [];
  let cursor: string | undefined;
  do {
    const page = await conversation.history({ limit: 200, ...(cursor !== undefined ? { cursor } : {}) });
    messages.push(...page.messages);
    messages.splice(0, Math.max(0, messages.length - REJOIN_TAIL));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  for (const message of messages) {
    const text = textOf(message);
    if (text) ctx.out(`${ctx.style.dim(`[turn ${message.turn}] ${message.role}:`)} ${terminalSafe(text)}`);
  }
}

function textOf(message: TranscriptMessage): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('')
    .trim();
}
