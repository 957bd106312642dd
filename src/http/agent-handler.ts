// `createAgentHandler`: a standard fetch handler `(Request) => Promise<Response>` that serves durable chats to
// web frontends speaking the AI SDK's UI message stream (`useChat`). A chat is a durable conversation, each message
// a turn (a run). Every route authenticates, finds this user's chat (never another user's) and its running turn,
// and decides approvals and answers questions through the run's own updates, which check them: nothing the page
// sends back is trusted as history.
import { WorkflowNotFoundError } from '@temporalio/client';
import type { UIMessageChunk } from 'ai';
import { z } from 'zod';
import type { AgentRun } from '../client/agent-run.js';
import { NoWorkerError } from '../client/errors/no-worker-error.js';
import { RunRequestRejectedError } from '../client/errors/run-request-rejected-error.js';
import { WorkerTimeoutError } from '../client/errors/worker-timeout-error.js';
import { jsonBytes } from '../protocol/bytes.js';
import { INPUT_LIMITS } from '../protocol/constants.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { CHAT_ID, parseChatRequest, type ApprovalResponse } from './chat-request.js';
import { postAgUi } from './ag-ui-route.js';
import { findChat, runningTurn, sendChatMessage, type ChatTurn } from './chat-conversation.js';
import {
  DEFAULT_CHAT_PREFIX,
  chatConversationId,
  noRunningTurn,
  notFound,
  sameToken,
  type RequestContext,
  type Settings,
} from './chat-turns.js';
import { DEFAULTS, type AgentHandlerOptions, type AuthenticatedUser } from './handler-options.js';
import { HttpRefusal, refusalResponse } from './http-refusal.js';
import { refusalStatus } from './refusal-status.js';
import { malformed, readJsonBody } from './read-body.js';
import { sseResponse, streamOptions, UI_MESSAGE_STREAM_HEADERS, type SseFraming } from './sse.js';
import { StreamSlots, withStreamSlot } from './stream-slots.js';
import { writeTurn, type TurnProtocol } from './turn-stream.js';
import { approvalIdOf, UiMessageChunkMapper } from './ui-message-chunks.js';

const elicitationAnswerSchema = z.strictObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  token: z.string().max(300).optional(),
});

/**
 * A fetch handler for durable chats. Each chat is a conversation with `agent` (one workflow per user and chat id),
 * each message a turn on the transcript so far. Mount it under any path whose routes end in:
 *
 * - `POST …/chat`: `useChat`'s body. A user message becomes the chat's next turn (queued behind a running one) and
 *   is answered with that turn's UI message stream; an approval response (`addToolApprovalResponse`) is checked
 *   against the running turn's pending request and decided through its run, and the stream goes on.
 * - `GET …/chat/:chatId/stream`: the running turn from its start (`useChat({ resume: true })`), 204 when none.
 * - `POST …/chat/:chatId/stop`: cancels the running turn; the chat stays (closing the page only disconnects).
 * - `POST …/chat/:chatId/elicitations/:id`: answers an MCP server's question `{ action, content?, token }`.
 * - `POST …/agui`: an AG-UI run (`RunAgentInput`; `threadId` is the chat id) answered with AG-UI events; the run
 *   finishes with an interrupt per pending approval and question, answered by the next input's `resume`.
 */
export function createAgentHandler(options: AgentHandlerOptions): (request: Request) => Promise<Response> {
  if (typeof options.authenticate !== 'function') {
    throw new TypeError("createAgentHandler needs authenticate(request): every route serves one user's runs.");
  }
  const settings = { ...DEFAULTS, ...definedOnly(options) };
  const prefix = options.workflowIdPrefix ?? DEFAULT_CHAT_PREFIX;
  const origin = ownOrigin(options.origin);
  const onError = options.onError ?? ((error: unknown) => console.error('durable-agent/http:', error));
  const streams = new StreamSlots(settings.maxStreams, settings.maxStreamsPerUser);

  return async (request: Request): Promise<Response> => {
    try {
      const url = new URL(request.url);
      const route = routeOf(url.pathname);
      if (!route) throw notFound('No such route: the handler serves …/chat, …/chat/:chatId/(stream|stop) and …/agui.');
      if (request.method !== route.method) {
        throw HttpRefusal.of(RefusalCode.HttpMethodNotAllowed, `Use ${route.method} for this route.`);
      }
      checkOrigin(request, url, options.allowedOrigins ?? [], origin);
      const user = await authenticated(request, options.authenticate);
      const conversationId = (chatId: string) => chatConversationId(prefix, user.userId, chatId);
      const context = { request, user, conversationId, settings, onError, streams };
      switch (route.name) {
        case 'chat':
          return await postChat(context, options);
        case 'stream':
          return await resumeStream(context, options, route.chatId);
        case 'stop':
          return await stopTurn(context, options, route.chatId);
        case 'elicitation':
          return await answerElicitation(context, options, route.chatId, route.questionId);
        case 'agui':
          return await postAgUi(context, options);
      }
    } catch (error) {
      return errorResponse(error, request, onError);
    }
  };
}

type Route =
  | { name: 'chat' | 'agui'; method: 'POST' }
  | { name: 'stream' | 'stop'; method: 'GET' | 'POST'; chatId: string }
  | { name: 'elicitation'; method: 'POST'; chatId: string; questionId: string };

/** The route of a path, by its last segments (so the handler mounts under any prefix). */
function routeOf(pathname: string): Route | undefined {
  const segments = pathname.split('/').filter((s) => s !== '');
  if (segments.at(-1) === 'agui') return { name: 'agui', method: 'POST' };
  const at = segments.lastIndexOf('chat');
  if (at === -1) return undefined;
  const rest = segments.slice(at + 1).map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return '';
    }
  });
  if (rest.length === 0) return { name: 'chat', method: 'POST' };
  const [chatId, action, questionId] = rest;
  if (chatId === undefined || !CHAT_ID.test(chatId)) return undefined;
  if (rest.length === 2 && action === 'stream') return { name: 'stream', method: 'GET', chatId };
  if (rest.length === 2 && action === 'stop') return { name: 'stop', method: 'POST', chatId };
  if (rest.length === 3 && action === 'elicitations' && questionId && questionId.length <= 300) {
    return { name: 'elicitation', method: 'POST', chatId, questionId };
  }
  return undefined;
}

/**
 * Browsers send `Origin` on cross-origin requests and on every POST: one that is neither the handler's own nor
 * allowed is refused. Without it, a POST carrying cookies that the browser marks cross-site is refused too. The
 * handler's own origin is `configured`, else the request URL's scheme with the `Host` header the browser sent; never
 * the origin of a URL parsed from the request-target, which a request for `//evil.example/…` makes the attacker's.
 */
export function checkOrigin(request: Request, url: URL, allowed: string[], configured?: string): void {
  const origin = request.headers.get('origin');
  const refused = () =>
    HttpRefusal.of(
      RefusalCode.HttpOriginRefused,
      "This origin may not call the agent handler: serve the page from the handler's origin or list it in " +
        'allowedOrigins.',
    );
  if (origin !== null) {
    const own = configured ?? `${url.protocol}//${request.headers.get('host') ?? url.host}`;
    if (origin !== own && !allowed.includes(origin)) throw refused();
    return;
  }
  if (request.headers.has('cookie') && request.headers.get('sec-fetch-site') === 'cross-site') throw refused();
}

/** The user `authenticate` vouches for, or a 401 refusal (`Http.Unauthenticated`). */
export async function authenticated(
  request: Request,
  authenticate: AgentHandlerOptions['authenticate'],
): Promise<AuthenticatedUser> {
  const user = await authenticate(request);
  if (!user || typeof user.userId !== 'string' || user.userId === '') {
    throw HttpRefusal.of(RefusalCode.HttpUnauthenticated, 'Sign in first: this request carries no known user.');
  }
  // A run records its user as approver and responder, bounded there: a longer id could start runs it can never
  // answer, so it is refused at the door.
  if (user.userId.length > INPUT_LIMITS.approverChars) {
    throw HttpRefusal.of(
      RefusalCode.HttpInvalidUser,
      `authenticate returned a user id over ${INPUT_LIMITS.approverChars} characters, which runs cannot record: ` +
        'use a shorter stable id (a database key, a hash).',
    );
  }
  return { userId: user.userId };
}

/** The configured `origin` option as an origin (`https://app.example`), checked once when the handler is made. */
export function ownOrigin(configured: string | undefined): string | undefined {
  if (configured === undefined) return undefined;
  const origin = URL.canParse(configured) ? new URL(configured).origin : 'null';
  if (origin === 'null')
    throw new TypeError(`origin must be an http(s) origin such as https://app.example, not ${configured}.`);
  return origin;
}

async function postChat(context: RequestContext, options: AgentHandlerOptions): Promise<Response> {
  const body = await readJsonBody(context.request, context.settings.maxBodyBytes);
  const chat = parseChatRequest(body, context.settings);
  // The stream's slot is taken before anything is decided or sent: a refused stream changes nothing.
  return await withStreamSlot(context.streams, context.user.userId, async (release) => {
    if (chat.kind === 'approvals') {
      const turn = await requireRunningTurn(context, options, chat.chatId, 'waits for no approval');
      await decideApprovals(turn.run, chat.approvals, context.user);
      return streamTurn(context, turn.run, chat.from, { type: 'start' }, release);
    }
    // While a turn runs, the message waits behind it (the conversation's queue): the response starts at once and
    // streams this message's own turn when it comes. Every message the page shows as sent is in the transcript.
    const turn = await sendChatMessage(options, context, chat.chatId, chat.text, chat.messageId);
    return streamTurn(context, turn.run, 0, { type: 'start', messageId: turn.messageId }, release);
  });
}

/** The chat's running turn; refused when the chat is not this user's (404) or no turn of it runs (409). */
async function requireRunningTurn(
  context: RequestContext,
  options: AgentHandlerOptions,
  chatId: string,
  what: string,
): Promise<ChatTurn> {
  const chat = await findChat(options, context, chatId);
  if (!chat) throw notFound(`No chat ${chatId} of yours.`);
  const turn = await runningTurn(chat);
  if (!turn) throw noRunningTurn(what);
  return turn;
}

/**
 * Checks every approval response against the run's pending requests (the id the handler gave it, the run's token,
 * this user's run) before deciding any, then decides each through the run's update, which checks them again. A
 * response for a call that is not pending (decided already, replayed, never asked) goes to the run's update with
 * what it carries, so the run's own refusal (`Approval.AlreadyDecided`, `Approval.UnknownCall`) is the answer.
 */
async function decideApprovals(run: AgentRun, approvals: ApprovalResponse[], user: AuthenticatedUser): Promise<void> {
  const state = await run.state();
  for (const approval of approvals) {
    if (approval.approvalId !== approvalIdOf(approval.toolCallId)) {
      throw HttpRefusal.of(
        RefusalCode.ApprovalUnknownCall,
        'The approval response names an approval this run never requested: decide on the request the page shows.',
      );
    }
    const pending = state.pendingApprovals.find((p) => p.toolCallId === approval.toolCallId);
    if (pending?.token !== undefined && !sameToken(pending.token, approval.token)) {
      throw HttpRefusal.of(
        RefusalCode.ApprovalTokenMismatch,
        "The approval response does not carry the token of the run's request: decide on the request the page shows.",
      );
    }
  }
  for (const approval of approvals) {
    const decide = approval.approved ? run.approve.bind(run) : run.deny.bind(run);
    await decide(approval.toolCallId, {
      // Without a token the run refuses a call it asked with one; an empty token is never a request's.
      token: approval.token ?? '',
      approver: user.userId,
      ...(approval.reason !== undefined ? { reason: approval.reason } : {}),
    });
  }
}

async function resumeStream(context: RequestContext, options: AgentHandlerOptions, chatId: string): Promise<Response> {
  return await withStreamSlot(context.streams, context.user.userId, async (release) => {
    const chat = await findChat(options, context, chatId);
    // A chat between turns rejoins the turn that comes next: the page sees the answer to what it sent.
    const turn = chat && (await runningTurn(chat, { next: true }));
    if (!turn) {
      release();
      return new Response(null, { status: 204 });
    }
    // `useChat` replays a resumed stream from its start (DefaultChatTransport's resumeStreamIsReplay): the whole turn.
    return streamTurn(context, turn.run, 0, { type: 'start', messageId: turn.messageId }, release);
  });
}

/**
 * Cancels the running turn's run (Temporal cancellation: its tools and model call see it). The conversation records
 * the turn as cancelled and goes on with the next message, if one waits: the chat stays.
 */
async function stopTurn(context: RequestContext, options: AgentHandlerOptions, chatId: string): Promise<Response> {
  const chat = await findChat(options, context, chatId);
  const turn = chat && (await runningTurn(chat));
  if (!turn) return new Response(null, { status: 204 });
  try {
    await turn.run.cancel();
  } catch (error) {
    // The turn ended between finding it and cancelling it: nothing runs any more.
    if (error instanceof WorkflowNotFoundError) return new Response(null, { status: 204 });
    throw error;
  }
  return Response.json({ stopped: true, turn: turn.turn }, { status: 202 });
}

async function answerElicitation(
  context: RequestContext,
  options: AgentHandlerOptions,
  chatId: string,
  questionId: string,
): Promise<Response> {
  const body = await readJsonBody(context.request, context.settings.maxBodyBytes);
  const parsed = elicitationAnswerSchema.safeParse(body);
  if (!parsed.success) throw malformed('expected { action: "accept" | "decline" | "cancel", content?, token }');
  const answer = parsed.data;
  if (answer.content !== undefined && jsonBytes(answer.content) > context.settings.maxMessageBytes) {
    throw HttpRefusal.of(RefusalCode.InputTooLarge, 'The answer is over maxMessageBytes.');
  }
  const turn = await requireRunningTurn(context, options, chatId, 'asks nothing');
  // The run checks the id, the token and the content against the question's schema before recording anything.
  const record = await turn.run.respondToElicitation(
    questionId,
    { action: answer.action, ...(answer.content !== undefined ? { content: answer.content } : {}) },
    { responder: context.user.userId, token: answer.token ?? '' },
  );
  return Response.json({ answered: record ?? null });
}

/**
 * The turn's UI message stream from `from`: its parts as chunks, ending after the run's terminal event, or once
 * the run waits for the page (an approval, a client-side tool result), with the offset to go on from in the
 * message's metadata.
 */
function streamTurn(
  context: RequestContext,
  run: AgentRun,
  from: number,
  start: UIMessageChunk,
  release: () => void,
): Response {
  const mapper = new UiMessageChunkMapper();
  const protocol: TurnProtocol<UIMessageChunk> = {
    pausesOnQuestions: false,
    get ended() {
      return mapper.ended;
    },
    start: () => [start],
    map: (part, next) =>
      mapper
        .map(part)
        .map((chunk) => (chunk.type === 'finish' ? { ...chunk, messageMetadata: metadata(next, 'ended') } : chunk)),
    waiting: (next) => [{ type: 'finish', finishReason: 'tool-calls', messageMetadata: metadata(next, 'waiting') }],
    closed: (next) => [{ type: 'finish', messageMetadata: metadata(next, 'ended') }],
  };
  return sseResponse(
    (writer, signal) => writeTurn(run, from, protocol, writer, signal),
    UI_MESSAGE_FRAMING,
    streamOptions(context.settings, context.request, context.onError, release),
  );
}

const UI_MESSAGE_FRAMING: SseFraming<UIMessageChunk> = {
  headers: UI_MESSAGE_STREAM_HEADERS,
  done: '[DONE]',
  broken: { type: 'error', errorText: 'The stream of this run broke off; resume it to read on.' },
  slow: { type: 'error', errorText: `${RefusalCode.HttpSlowReader}: this page read the stream too slowly; resume it.` },
};

/** What the handler keeps in the assistant message's metadata: where its copy of the turn ends. */
function metadata(offset: number, status: 'waiting' | 'ended') {
  return { durableAgent: { offset, status } };
}

/** A failure as a JSON answer with its code; anything unexpected is a bare 500 (details only to `onError`). */
export function errorResponse(
  error: unknown,
  request: Request,
  onError: (error: unknown, request: Request) => void,
): Response {
  if (HttpRefusal.isInstance(error)) {
    return refusalResponse(error, error.code === RefusalCode.HttpTooManyStreams ? { 'retry-after': '5' } : {});
  }
  if (RunRequestRejectedError.isInstance(error)) {
    return refusalResponse(new HttpRefusal(refusalStatus(error.code), error.code, error.message));
  }
  if (NoWorkerError.isInstance(error) || WorkerTimeoutError.isInstance(error)) {
    return refusalResponse(
      HttpRefusal.of(RefusalCode.HttpUnavailable, 'No worker answered this run in time; try again shortly.'),
      { 'retry-after': '5' },
    );
  }
  onError(error, request);
  return refusalResponse(HttpRefusal.of(RefusalCode.HttpInternal, 'The request failed; the server logged why.'));
}

function definedOnly(options: AgentHandlerOptions): Partial<Settings> {
  const out: Partial<Settings> = {};
  for (const key of Object.keys(DEFAULTS) as Array<keyof Settings>) {
    const value = options[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
