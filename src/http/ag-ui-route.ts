// `POST …/agui`: an AG-UI run (`RunAgentInput`) on the chat's durable conversation (`threadId` is the chat id). A
// new user message becomes the chat's next turn; a request with `resume` answers the interrupts the last response
// ended with (approvals, MCP questions) through the running turn's own updates and goes on reading; a request whose
// last user message was sent already (a client that dropped and runs again) rejoins that turn where its copy ends.
import { EventType, type AGUIEvent, type Message, type ResumeEntry } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { AgentRun } from '../client/agent-run.js';
import { jsonBytes, utf8Length } from '../protocol/bytes.js';
import type { ElicitationContent } from '../protocol/index.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { AgUiEventMapper, parseInterruptId, type InterruptRef } from './ag-ui-events.js';
import { checkThread, markSent, positionOf } from './ag-ui-thread.js';
import { existingTurn, findChat, runningTurn, sendChatMessage, type ChatTurn } from './chat-conversation.js';
import { CHAT_ID } from './chat-request.js';
import { noRunningTurn, notFound, sameToken, type RequestContext } from './chat-turns.js';
import type { AgentHandlerOptions } from './handler-options.js';
import { HttpRefusal } from './http-refusal.js';
import { malformed, readJsonBody } from './read-body.js';
import { AG_UI_STREAM_HEADERS, sseResponse, streamOptions, type SseFraming } from './sse.js';
import { withStreamSlot } from './stream-slots.js';
import { writeTurn, type TurnProtocol } from './turn-stream.js';

/** Most resume entries one request may carry. */
const MAX_RESUME = 64;

const FRAMING: SseFraming<AGUIEvent> = {
  headers: AG_UI_STREAM_HEADERS,
  broken: { type: EventType.RUN_ERROR, message: 'The stream of this run broke off; connect again to read on.' },
  slow: {
    type: EventType.RUN_ERROR,
    code: RefusalCode.HttpSlowReader,
    message: 'This client read the stream too slowly; connect again to read on.',
  },
};

/** What one AG-UI response streams: a turn, from where, and the thread to echo when the turn is new. */
interface AgUiResponse {
  turn: ChatTurn;
  /** The offset the client's copy of the turn ends at: written from here, read from the turn's start. */
  from: number;
  /** The thread with its new user message marked as sent (a MESSAGES_SNAPSHOT after RUN_STARTED). */
  snapshot?: Message[];
}

export async function postAgUi(context: RequestContext, options: AgentHandlerOptions): Promise<Response> {
  const body = await readJsonBody(context.request, context.settings.maxBodyBytes);
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw malformed(
      `${issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body'} (expected RunAgentInput)`,
    );
  }
  const input = parsed.data;
  if (!CHAT_ID.test(input.threadId)) throw malformed('the threadId must be 1 to 128 letters, digits, "-" or "_"');
  if (input.runId.length > 200) throw malformed('the runId is over 200 characters');
  const resume = input.resume ?? [];
  if (resume.length > MAX_RESUME) throw malformed(`more than ${MAX_RESUME} resume entries`);
  // Bounded before anything is sent: a thread refused after its message was queued would queue it again on retry.
  checkThread(input.messages);
  return await withStreamSlot(context.streams, context.user.userId, async (release) => {
    const response = await respond(context, options, input.threadId, input.messages, resume);
    return stream(context, response, input, release);
  });
}

async function respond(
  context: RequestContext,
  options: AgentHandlerOptions,
  threadId: string,
  messages: Message[],
  resume: ResumeEntry[],
): Promise<AgUiResponse> {
  if (resume.length > 0) {
    const chat = await findChat(options, context, threadId);
    if (!chat) throw notFound(`No thread ${threadId} of yours is waiting for an answer.`);
    const turn = await runningTurn(chat);
    if (!turn) throw noRunningTurn('waits for nothing');
    return { turn, from: await answerInterrupts(turn.run, resume, context) };
  }
  const position = positionOf(messages);
  if (position) {
    // The client has sent this message already: it rejoins the message's turn (running or ended) where it left.
    const chat = await findChat(options, context, threadId);
    const turn = chat && (await existingTurn(chat, position.turn));
    if (!turn) throw notFound(`No turn ${position.turn} in thread ${threadId} of yours.`);
    return { turn, from: position.offset };
  }
  const last = messages[messages.length - 1];
  const text = last?.role === 'user' ? textOf(last.content) : '';
  if (text.trim() === '') {
    throw HttpRefusal.of(RefusalCode.HttpUnsupported, "The last message must be the user's, with text.");
  }
  if (utf8Length(text) > context.settings.maxMessageBytes) {
    throw HttpRefusal.of(RefusalCode.InputTooLarge, 'The message is over maxMessageBytes: send a shorter one.');
  }
  // Queued behind a running turn, as useChat's follow-ups are. The message's id makes the send idempotent: a client
  // that retries a request whose answer it lost gets the same turn.
  const turn = await sendChatMessage(options, context, threadId, text, last?.id);
  return { turn, from: 0, snapshot: markSent(messages, turn.turn) };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((part: { type?: unknown; text?: unknown }) =>
      part?.type === 'text' && typeof part.text === 'string' ? [part.text] : [],
    )
    .join('\n');
}

/**
 * Checks every resume entry against the run's pending requests (the interrupt's request id and token), then
 * answers each through the run's update, which checks them again. Returns where to go on reading.
 */
async function answerInterrupts(run: AgentRun, resume: ResumeEntry[], context: RequestContext): Promise<number> {
  const state = await run.state();
  const answers: Array<{ ref: InterruptRef; entry: ResumeEntry }> = [];
  for (const entry of resume) {
    const ref = parseInterruptId(entry.interruptId);
    if (!ref) {
      throw HttpRefusal.of(
        RefusalCode.ApprovalUnknownCall,
        'A resume entry answers an interrupt this run never raised.',
      );
    }
    const pendingToken =
      ref.kind === 'approval'
        ? state.pendingApprovals.find((p) => p.toolCallId === ref.id)?.token
        : state.pendingElicitations.find((q) => q.id === ref.id)?.token;
    if (pendingToken !== undefined && !sameToken(pendingToken, ref.token)) {
      throw HttpRefusal.of(
        ref.kind === 'approval' ? RefusalCode.ApprovalTokenMismatch : RefusalCode.ElicitationTokenMismatch,
        "A resume entry does not carry the token of the run's request: answer the interrupt the run raised.",
      );
    }
    if (entry.payload !== undefined && jsonBytes(entry.payload) > context.settings.maxMessageBytes) {
      throw HttpRefusal.of(RefusalCode.InputTooLarge, 'A resume payload is over maxMessageBytes.');
    }
    answers.push({ ref, entry });
  }
  let from = 0;
  for (const { ref, entry } of answers) {
    from = Math.max(from, ref.offset);
    const payload = (entry.payload ?? {}) as Record<string, unknown>;
    if (ref.kind === 'approval') {
      const approved = entry.status === 'resolved' && payload.approved === true;
      const decide = approved ? run.approve.bind(run) : run.deny.bind(run);
      await decide(ref.id, {
        token: ref.token,
        approver: context.user.userId,
        ...(typeof payload.reason === 'string' ? { reason: payload.reason } : {}),
      });
    } else {
      // A resolved question's payload is the content (or `{ action, content }`); a cancelled one answers `cancel`.
      const action =
        entry.status === 'cancelled'
          ? 'cancel'
          : payload.action === 'decline' || payload.action === 'cancel'
            ? payload.action
            : 'accept';
      const content = (payload.action === 'accept' ? payload.content : payload) as ElicitationContent | undefined;
      await run.respondToElicitation(
        ref.id,
        { action, ...(action === 'accept' && content !== undefined ? { content } : {}) },
        { responder: context.user.userId, token: ref.token },
      );
    }
  }
  return from;
}

function stream(
  context: RequestContext,
  response: AgUiResponse,
  input: { threadId: string; runId: string; messages: Message[] },
  release: () => void,
): Response {
  const { turn, from, snapshot } = response;
  const mapper = new AgUiEventMapper({
    threadId: input.threadId,
    runId: input.runId,
    turn: turn.turn,
    messages: input.messages,
  });
  const protocol: TurnProtocol<AGUIEvent> = {
    pausesOnQuestions: true,
    get ended() {
      return mapper.ended;
    },
    start: () => mapper.start(snapshot),
    seen: (part) => mapper.seen(part),
    map: (part, next) => mapper.map(part, next),
    waiting: (next, state) => mapper.waiting(next, state),
    closed: () => mapper.closed(),
  };
  // Read from the turn's start: what came before `from` tells what the run waits for, and is not written again.
  return sseResponse(
    (writer, signal) => writeTurn(turn.run, from, protocol, writer, signal, 0),
    FRAMING,
    streamOptions(context.settings, context.request, context.onError, release),
  );
}
