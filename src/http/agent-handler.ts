// `createAgentHandler`: a standard fetch handler `(Request) => Promise<Response>` that serves durable runs to
// web frontends speaking the AI SDK's UI message stream (`useChat`). Every route authenticates, finds the run of
// this user's chat (never another user's), and decides approvals and answers questions through the run's own
// updates, which check them: nothing the page sends back is trusted as history.
import { createHash, timingSafeEqual } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { UIMessageChunk } from 'ai';
import { z } from 'zod';
import type { AgentClient, StartRunOptions } from '../client/agent-client.js';
import type { AgentRun } from '../client/agent-run.js';
import { NoWorkerError } from '../client/errors/no-worker-error.js';
import { RunRequestRejectedError } from '../client/errors/run-request-rejected-error.js';
import { WorkerTimeoutError } from '../client/errors/worker-timeout-error.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { CHAT_ID, parseChatRequest, type ApprovalResponse } from './chat-request.js';
import { HttpRefusal, refusalResponse } from './http-refusal.js';
import { malformed, readJsonBody } from './read-body.js';
import { sseResponse, type ChunkWriter } from './sse.js';
import { approvalIdOf, UiMessageChunkMapper, type WebStreamPart } from './ui-message-chunks.js';
import { stateWaitsForPage, WaitTracker } from './wait-tracker.js';

/** Who a request comes from, as `authenticate` vouches. */
export interface AuthenticatedUser {
  /** Stable id of the user: runs are theirs alone (stored as the run's `userId`). */
  userId: string;
}

/** What {@link AgentHandlerOptions.startOptions} is given to choose a new run's options. */
export interface ChatTurnContext {
  user: AuthenticatedUser;
  chatId: string;
  request: Request;
}

/** Options of {@link createAgentHandler}. */
export interface AgentHandlerOptions {
  /** Starts and finds the runs. */
  client: AgentClient;
  /** The agent a chat message starts a run of. */
  agent: string;
  /**
   * Who sends the request (a session cookie, a bearer token…), or `null`/`undefined` to refuse it with 401. Required:
   * every route needs a user, and a run is only ever served to the user who started it.
   */
  authenticate: (
    request: Request,
  ) => AuthenticatedUser | null | undefined | Promise<AuthenticatedUser | null | undefined>;
  /** More options of a new run (task queue, context, step budget…); `userId` and `workflowId` are the handler's. */
  startOptions?: (context: ChatTurnContext) => StartRunOptions | Promise<StartRunOptions>;
  /**
   * Origins whose browsers may call the handler, besides its own (the request URL's origin). A request with another
   * `Origin` is refused, so a cross-site page cannot ride on the user's cookies.
   */
  allowedOrigins?: string[];
  /** Largest request body in UTF-8 bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Largest user message text, approval reason or answer in UTF-8 bytes (default 32 KiB). */
  maxMessageBytes?: number;
  /** How often an idle stream sends an SSE comment, in ms (default 15 s), so proxies keep it open. */
  keepAliveMs?: number;
  /** Prefix of the workflow ids of chat turns (default `chat-`). */
  workflowIdPrefix?: string;
  /** Told of unexpected failures (answered 500 with no details). Default: `console.error`. */
  onError?: (error: unknown, request: Request) => void;
}

const DEFAULTS = { maxBodyBytes: 1024 * 1024, maxMessageBytes: 32 * 1024, keepAliveMs: 15_000 };
/** How long a stream that looks parked on a person waits for more parts before asking the run to confirm. */
const QUIET_MS = 250;
const MAX_QUIET_MS = 5_000;

const elicitationAnswerSchema = z.strictObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  token: z.string().max(300).optional(),
});

/**
 * A fetch handler for chats on durable runs. Mount it under any path whose routes end in:
 *
 * - `POST …/chat`: `useChat`'s body. A user message starts the chat's turn (a run) and answers its UI message stream;
 *   an approval response (`addToolApprovalResponse`) is checked against the run's pending request and decided
 *   through the run, and the stream goes on.
 * - `GET …/chat/:chatId/stream`: the running turn from its start (`useChat({ resume: true })`), 204 when none.
 * - `POST …/chat/:chatId/stop`: cancels the running turn (closing the page only disconnects).
 * - `POST …/chat/:chatId/elicitations/:id`: answers an MCP server's question `{ action, content?, token }`.
 */
export function createAgentHandler(options: AgentHandlerOptions): (request: Request) => Promise<Response> {
  if (typeof options.authenticate !== 'function') {
    throw new TypeError("createAgentHandler needs authenticate(request): every route serves one user's runs.");
  }
  const settings = { ...DEFAULTS, ...definedOnly(options) };
  const prefix = options.workflowIdPrefix ?? 'chat-';
  const onError = options.onError ?? ((error: unknown) => console.error('durable-agent/http:', error));

  return async (request: Request): Promise<Response> => {
    try {
      const url = new URL(request.url);
      const route = routeOf(url.pathname);
      if (!route) throw notFound('No such route: the handler serves …/chat and …/chat/:chatId/(stream|stop).');
      if (request.method !== route.method) {
        throw new HttpRefusal(405, RefusalCode.HttpMethodNotAllowed, `Use ${route.method} for this route.`);
      }
      checkOrigin(request, url, options.allowedOrigins ?? []);
      const user = await authenticated(request, options.authenticate);
      const turnId = (chatId: string) => `${prefix}${userKey(user.userId)}-${chatId}`;
      const context = { request, user, turnId, settings, onError };
      switch (route.name) {
        case 'chat':
          return await postChat(context, options);
        case 'stream':
          return await resumeStream(context, options.client, route.chatId);
        case 'stop':
          return await stopTurn(context, options.client, route.chatId);
        case 'elicitation':
          return await answerElicitation(context, options.client, route.chatId, route.questionId);
      }
    } catch (error) {
      return errorResponse(error, request, onError);
    }
  };
}

type Settings = typeof DEFAULTS;

interface RequestContext {
  request: Request;
  user: AuthenticatedUser;
  /** The workflow id of a chat's turns: the user is part of it, so another user's chat is never found. */
  turnId: (chatId: string) => string;
  settings: Settings;
  onError: (error: unknown, request: Request) => void;
}

type Route =
  | { name: 'chat'; method: 'POST' }
  | { name: 'stream' | 'stop'; method: 'GET' | 'POST'; chatId: string }
  | { name: 'elicitation'; method: 'POST'; chatId: string; questionId: string };

/** The route of a path, by its last segments (so the handler mounts under any prefix). */
function routeOf(pathname: string): Route | undefined {
  const segments = pathname.split('/').filter((s) => s !== '');
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
 * allowed is refused. Without it, a POST carrying cookies that the browser marks cross-site is refused too.
 */
function checkOrigin(request: Request, url: URL, allowed: string[]): void {
  const origin = request.headers.get('origin');
  const refused = () =>
    new HttpRefusal(
      403,
      RefusalCode.HttpOriginRefused,
      "This origin may not call the agent handler: serve the page from the handler's origin or list it in " +
        'allowedOrigins.',
    );
  if (origin !== null) {
    if (origin !== url.origin && !allowed.includes(origin)) throw refused();
    return;
  }
  if (request.headers.has('cookie') && request.headers.get('sec-fetch-site') === 'cross-site') throw refused();
}

async function authenticated(
  request: Request,
  authenticate: AgentHandlerOptions['authenticate'],
): Promise<AuthenticatedUser> {
  const user = await authenticate(request);
  if (!user || typeof user.userId !== 'string' || user.userId === '' || user.userId.length > 500) {
    throw new HttpRefusal(401, RefusalCode.HttpUnauthenticated, 'Sign in first: this request carries no known user.');
  }
  return { userId: user.userId };
}

/** A short, stable, non-reversible key of a user id for workflow ids (which Temporal lists to operators). */
function userKey(userId: string): string {
  return createHash('sha256').update(userId).digest('hex').slice(0, 24);
}

/** The chat's latest turn, if it is this user's: its run pinned to its first execution, and whether it runs. */
async function findTurn(
  client: AgentClient,
  context: RequestContext,
  chatId: string,
): Promise<{ run: AgentRun; running: boolean; messageId: string } | undefined> {
  const workflowId = context.turnId(chatId);
  let description;
  try {
    description = await client.temporal.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
  // The workflow id already names the user; the memo is checked too, so a run started otherwise is never served.
  if (description.memo?.webUser !== context.user.userId) return undefined;
  const firstRunId = description.raw.workflowExecutionInfo?.firstRunId || description.runId;
  return {
    run: client.getRun(workflowId, { firstExecutionRunId: firstRunId }),
    running: description.status.name === 'RUNNING',
    messageId: `msg-${firstRunId}`,
  };
}

async function postChat(context: RequestContext, options: AgentHandlerOptions): Promise<Response> {
  const body = await readJsonBody(context.request, context.settings.maxBodyBytes);
  const chat = parseChatRequest(body, context.settings);
  const { client } = options;
  if (chat.kind === 'approvals') {
    const turn = await findTurn(client, context, chat.chatId);
    if (!turn) throw notFound(`No chat ${chat.chatId} of yours is waiting for an approval.`);
    if (!turn.running) {
      throw new HttpRefusal(409, RefusalCode.RunEnded, 'This turn has ended: it waits for no approval.');
    }
    await decideApprovals(turn.run, chat.approvals, context.user);
    return streamTurn(context, turn.run, chat.from, { type: 'start' });
  }
  const existing = await findTurn(client, context, chat.chatId);
  if (existing?.running) throw turnInProgress();
  const extra =
    (await options.startOptions?.({ user: context.user, chatId: chat.chatId, request: context.request })) ?? {};
  let run: AgentRun;
  try {
    run = await client.start(options.agent, chat.text, {
      ...extra,
      userId: context.user.userId,
      conversationId: chat.chatId,
      workflowId: context.turnId(chat.chatId),
      workflow: {
        ...extra.workflow,
        memo: { ...extra.workflow?.memo, webUser: context.user.userId, webChat: chat.chatId },
      },
    });
  } catch (error) {
    // Two tabs sending at once: the second finds the first's turn running.
    if (error instanceof WorkflowExecutionAlreadyStartedError) throw turnInProgress();
    throw error;
  }
  return streamTurn(context, run, 0, { type: 'start', messageId: `msg-${run.firstExecutionRunId}` });
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
      throw new HttpRefusal(
        403,
        RefusalCode.ApprovalUnknownCall,
        'The approval response names an approval this run never requested: decide on the request the page shows.',
      );
    }
    const pending = state.pendingApprovals.find((p) => p.toolCallId === approval.toolCallId);
    if (pending?.token !== undefined && !sameToken(pending.token, approval.token)) {
      throw new HttpRefusal(
        403,
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

function sameToken(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function resumeStream(context: RequestContext, client: AgentClient, chatId: string): Promise<Response> {
  const turn = await findTurn(client, context, chatId);
  if (!turn?.running) return new Response(null, { status: 204 });
  // `useChat` replays a resumed stream from its start (DefaultChatTransport's resumeStreamIsReplay): the whole turn.
  return streamTurn(context, turn.run, 0, { type: 'start', messageId: turn.messageId });
}

async function stopTurn(context: RequestContext, client: AgentClient, chatId: string): Promise<Response> {
  const turn = await findTurn(client, context, chatId);
  if (!turn?.running) return new Response(null, { status: 204 });
  await turn.run.cancel();
  return Response.json({ stopped: true }, { status: 202 });
}

async function answerElicitation(
  context: RequestContext,
  client: AgentClient,
  chatId: string,
  questionId: string,
): Promise<Response> {
  const body = await readJsonBody(context.request, context.settings.maxBodyBytes);
  const parsed = elicitationAnswerSchema.safeParse(body);
  if (!parsed.success) throw malformed('expected { action: "accept" | "decline" | "cancel", content?, token }');
  const answer = parsed.data;
  if (answer.content !== undefined && JSON.stringify(answer.content).length > context.settings.maxMessageBytes) {
    throw new HttpRefusal(413, RefusalCode.InputTooLarge, 'The answer is over maxMessageBytes.');
  }
  const turn = await findTurn(client, context, chatId);
  if (!turn) throw notFound(`No chat ${chatId} of yours asks this question.`);
  if (!turn.running) throw new HttpRefusal(409, RefusalCode.RunEnded, 'This turn has ended: it asks nothing.');
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
function streamTurn(context: RequestContext, run: AgentRun, from: number, start: UIMessageChunk): Response {
  return sseResponse((writer, signal) => pump(run, from, start, writer, signal), {
    keepAliveMs: context.settings.keepAliveMs,
    signal: context.request.signal,
    onError: (error) => context.onError(error, context.request),
  });
}

async function pump(
  run: AgentRun,
  from: number,
  start: UIMessageChunk,
  writer: ChunkWriter,
  signal: AbortSignal,
): Promise<void> {
  writer.write(start);
  const mapper = new UiMessageChunkMapper();
  const waits = new WaitTracker();
  // Ending the response aborts the read, which ends the generator's pending `next()` (a `return()` would wait on it).
  const reading = new AbortController();
  const stopReading = () => reading.abort();
  signal.addEventListener('abort', stopReading, { once: true });
  const parts = (run.stream({ from, signal: reading.signal }) as AsyncIterable<WebStreamPart>)[Symbol.asyncIterator]();
  let next = from;
  let quietMs = QUIET_MS;
  let pending = parts.next();
  try {
    for (;;) {
      const result = waits.waitingForPage ? await Promise.race([pending, delay(quietMs)]) : await pending;
      if (result === 'quiet') {
        if (await confirmsWaiting(run)) {
          writer.write({ type: 'finish', finishReason: 'tool-calls', messageMetadata: metadata(next, 'waiting') });
          return;
        }
        quietMs = Math.min(quietMs * 2, MAX_QUIET_MS);
        continue;
      }
      if (result.done) break;
      const part = result.value;
      pending = parts.next();
      quietMs = QUIET_MS;
      next = part.offset + 1;
      if (part.type === 'event') waits.see(part.event);
      for (const chunk of mapper.map(part)) {
        writer.write(chunk.type === 'finish' ? { ...chunk, messageMetadata: metadata(next, 'ended') } : chunk);
      }
      if (mapper.ended) return;
    }
    // The stream ended with no terminal event (the run was terminated, or the client went away).
    if (!signal.aborted) writer.write({ type: 'finish', messageMetadata: metadata(next, 'ended') });
  } finally {
    signal.removeEventListener('abort', stopReading);
    reading.abort();
    pending.catch(() => undefined);
  }
}

/** What the handler keeps in the assistant message's metadata: where its copy of the turn ends. */
function metadata(offset: number, status: 'waiting' | 'ended') {
  return { durableAgent: { offset, status } };
}

async function confirmsWaiting(run: AgentRun): Promise<boolean> {
  try {
    return stateWaitsForPage(await run.state());
  } catch {
    // No worker answered: keep streaming; the events will say when the run moves.
    return false;
  }
}

function delay(ms: number): Promise<'quiet'> {
  return new Promise((resolve) => setTimeout(() => resolve('quiet'), ms).unref?.());
}

function notFound(message: string): HttpRefusal {
  return new HttpRefusal(404, RefusalCode.HttpNotFound, message);
}

function turnInProgress(): HttpRefusal {
  return new HttpRefusal(
    409,
    RefusalCode.HttpTurnInProgress,
    "This chat's turn is still running: resume it (GET …/chat/:id/stream), wait for it, or stop it first.",
  );
}

/** A failure as a JSON answer with its code; anything unexpected is a bare 500 (details only to `onError`). */
function errorResponse(
  error: unknown,
  request: Request,
  onError: (error: unknown, request: Request) => void,
): Response {
  if (HttpRefusal.isInstance(error)) return refusalResponse(error);
  if (RunRequestRejectedError.isInstance(error)) {
    const invalid = error.code === RefusalCode.ElicitationInvalidAnswer || error.code.startsWith('Input.');
    return refusalResponse(new HttpRefusal(invalid ? 422 : 409, error.code, error.message));
  }
  if (NoWorkerError.isInstance(error) || WorkerTimeoutError.isInstance(error)) {
    return refusalResponse(
      new HttpRefusal(503, RefusalCode.HttpUnavailable, 'No worker answered this run in time; try again shortly.'),
      { 'retry-after': '5' },
    );
  }
  onError(error, request);
  return refusalResponse(new HttpRefusal(500, RefusalCode.HttpInternal, 'The request failed; the server logged why.'));
}

function definedOnly(options: AgentHandlerOptions): Partial<Settings> {
  const out: Partial<Settings> = {};
  if (options.maxBodyBytes !== undefined) out.maxBodyBytes = options.maxBodyBytes;
  if (options.maxMessageBytes !== undefined) out.maxMessageBytes = options.maxMessageBytes;
  if (options.keepAliveMs !== undefined) out.keepAliveMs = options.keepAliveMs;
  return out;
}
