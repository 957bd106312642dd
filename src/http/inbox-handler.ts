// `createInboxHandler`: the inbox's routes, a fetch handler of the same family as `createAgentHandler` (same
// authentication, origin check, bounds and JSON errors). It lists what waits for people through Temporal visibility,
// streams a run live, and decides, answers and submits through each run's own updates, bound to the pending
// request's token; a decider who is not the run's user is checked by the run's agent (`authorizeDecision`).
import { z } from 'zod';
import type { AgentRun } from '../client/agent-run.js';
import { jsonBytes, utf8Length } from '../protocol/bytes.js';
import type { JsonValue } from '../protocol/index.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { authenticated, checkOrigin, errorResponse, ownOrigin } from './agent-handler.js';
import { DEFAULT_CHAT_PREFIX, chatConversationId, notFound } from './chat-turns.js';
import { DEFAULTS, type AuthenticatedUser } from './handler-options.js';
import { HttpRefusal } from './http-refusal.js';
import { LISTING_TIMEOUT_MS, itemsOf, listInbox, queryString } from './inbox-listing.js';
import { INBOX_DEFAULTS, MAX_INBOX_RUNS, type InboxHandlerOptions } from './inbox-options.js';
import { listConversation } from './inbox-conversation.js';
import { accessRun, type InboxRunAccess } from './inbox-run.js';
import { RunOpenings } from './run-opening.js';
import { malformed, readJsonBody } from './read-body.js';
import { runViewResponse } from './run-view-stream.js';
import { streamOptions } from './sse.js';
import { StreamSlots, withStreamSlot } from './stream-slots.js';

const TOKEN = z.string().max(300);
const approvalBody = z.strictObject({ approved: z.boolean(), reason: z.string().optional(), token: TOKEN });
const answerBody = z.strictObject({
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  token: TOKEN,
});
const toolResultBody = z.strictObject({ output: z.json(), isError: z.boolean().optional() });

/** Longest workflow id a route takes (Temporal's default limit). */
const MAX_WORKFLOW_ID = 1_000;

/**
 * A fetch handler for an inbox of what waits for people. Mount it under any path whose routes end in:
 *
 * - `GET …/inbox`: the waiting runs (the user's own; every run for a `reviewer`) and their requests: approvals with
 *   the call's arguments, MCP questions with their schema, client-side tool calls; who asked and since when.
 * - `GET …/inbox/conversations/:conversationId`: the runs of a conversation's turns (a chat's too), oldest first.
 * - `GET …/inbox/runs/:workflowId[?run=:firstRunId]`: one run: who, what agent, its status and pending requests.
 * - `GET …/inbox/runs/:workflowId/stream`: the run from its start as a UI message stream, live until it ends.
 * - `POST …/inbox/runs/:workflowId/approvals/:toolCallId`: `{ approved, reason?, token }`.
 * - `POST …/inbox/runs/:workflowId/elicitations/:id`: `{ action, content?, token }`.
 * - `POST …/inbox/runs/:workflowId/tool-results/:toolCallId`: `{ output, isError? }` (the run's user only).
 *
 * Runs publish what they wait for as search attributes when their namespace has them (docs/web.md): a namespace
 * without them lists nothing.
 */
export function createInboxHandler(options: InboxHandlerOptions): (request: Request) => Promise<Response> {
  if (typeof options.authenticate !== 'function') {
    throw new TypeError("createInboxHandler needs authenticate(request): the inbox shows a user's runs.");
  }
  const settings = {
    maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULTS.maxMessageBytes,
    keepAliveMs: options.keepAliveMs ?? DEFAULTS.keepAliveMs,
    streamBufferBytes: options.streamBufferBytes ?? DEFAULTS.streamBufferBytes,
    slowStreamMs: options.slowStreamMs ?? DEFAULTS.slowStreamMs,
    maxRuns: Math.min(MAX_INBOX_RUNS, Math.max(1, options.maxRuns ?? INBOX_DEFAULTS.maxRuns)),
    stateTimeoutMs: options.stateTimeoutMs ?? INBOX_DEFAULTS.stateTimeoutMs,
  };
  if (options.taskQueue !== undefined) queryString(options.taskQueue);
  const origin = ownOrigin(options.origin);
  const streams = new StreamSlots(
    options.maxStreams ?? DEFAULTS.maxStreams,
    options.maxStreamsPerUser ?? DEFAULTS.maxStreamsPerUser,
  );
  const onError = options.onError ?? ((error: unknown) => console.error('durable-agent/http inbox:', error));
  const { client } = options;
  const openings = new RunOpenings(client);

  return async (request: Request): Promise<Response> => {
    try {
      const url = new URL(request.url);
      const route = routeOf(url.pathname);
      if (!route) {
        throw notFound('No such route: the inbox serves …/inbox, …/inbox/conversations/:id and …/inbox/runs/:id[/…].');
      }
      if (request.method !== route.method) {
        throw HttpRefusal.of(RefusalCode.HttpMethodNotAllowed, `Use ${route.method} for this route.`);
      }
      checkOrigin(request, url, options.allowedOrigins ?? [], origin);
      const user = await authenticated(request, options.authenticate);
      const reviewer = (await options.reviewer?.(user, request)) === true;
      if (route.name === 'list') {
        const scope = { userId: user.userId, everyone: reviewer, taskQueue: options.taskQueue };
        // A page that leaves, or a listing past its deadline, cancels the listing's queries (none left to Temporal).
        const signal = AbortSignal.any([request.signal, AbortSignal.timeout(LISTING_TIMEOUT_MS)]);
        return json(await listInbox(client, scope, settings, { openings, signal }));
      }
      if (route.name === 'conversation') {
        const scope = { userId: user.userId, everyone: reviewer, taskQueue: options.taskQueue };
        // A chat id names the user's chat too (its conversation id holds the user; the page knows the chat id).
        const chat = chatConversationId(
          options.chatWorkflowIdPrefix ?? DEFAULT_CHAT_PREFIX,
          user.userId,
          route.conversationId,
        );
        return json(
          await client.temporal.withAbortSignal(request.signal, () =>
            listConversation(client, route.conversationId, { ...scope, alias: chat }, openings),
          ),
        );
      }
      const lookup = { workflowId: route.workflowId, firstRunId: runParam(url), taskQueue: options.taskQueue };
      const access = await accessRun(client, lookup, user, reviewer);
      switch (route.name) {
        case 'run':
          return json({ ...(await runSummary(access)), ...(await openings.of(access.workflowId, access.firstRunId)) });
        case 'stream':
          return await withStreamSlot(streams, user.userId, (release) =>
            runViewResponse(access.run, {
              messageId: `run-${access.firstRunId}`,
              ...streamOptions(settings, request, onError, release),
            }),
          );
        case 'approval':
          return json({ decided: await decide(access, route.id, await body(request, approvalBody), user, settings) });
        case 'elicitation':
          return json({ answered: await answer(access, route.id, await body(request, answerBody), user, settings) });
        case 'tool-result':
          await submit(access, route.id, await body(request, toolResultBody));
          return json({ submitted: true });
      }
    } catch (error) {
      return errorResponse(error, request, onError);
    }
  };

  async function body<T>(request: Request, schema: z.ZodType<T>): Promise<T> {
    const parsed = schema.safeParse(await readJsonBody(request, settings.maxBodyBytes));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw malformed(issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'invalid body');
    }
    return parsed.data;
  }
}

type Route =
  | { name: 'list'; method: 'GET' }
  | { name: 'conversation'; method: 'GET'; conversationId: string }
  | { name: 'run' | 'stream'; method: 'GET'; workflowId: string }
  | { name: 'approval' | 'elicitation' | 'tool-result'; method: 'POST'; workflowId: string; id: string };

const ACTIONS = { approvals: 'approval', elicitations: 'elicitation', 'tool-results': 'tool-result' } as const;

/** The route of a path, by its segments from the last `inbox` on (so the handler mounts under any prefix). */
function routeOf(pathname: string): Route | undefined {
  const segments = pathname.split('/').filter((s) => s !== '');
  const at = segments.lastIndexOf('inbox');
  if (at === -1) return undefined;
  const rest = segments.slice(at + 1).map(decoded);
  if (rest.length === 0) return { name: 'list', method: 'GET' };
  const [runs, workflowId, action, id] = rest;
  if (runs === 'conversations' && rest.length === 2 && workflowId && workflowId.length <= MAX_WORKFLOW_ID) {
    return { name: 'conversation', method: 'GET', conversationId: workflowId };
  }
  if (runs !== 'runs' || !workflowId || workflowId.length > MAX_WORKFLOW_ID) return undefined;
  if (rest.length === 2) return { name: 'run', method: 'GET', workflowId };
  if (rest.length === 3 && action === 'stream') return { name: 'stream', method: 'GET', workflowId };
  if (rest.length === 4 && action !== undefined && Object.hasOwn(ACTIONS, action) && id && id.length <= 300) {
    return { name: ACTIONS[action as keyof typeof ACTIONS], method: 'POST', workflowId, id };
  }
  return undefined;
}

/** The `run` query parameter: the first execution's run id a page names a run by (a UUID), if well formed. */
function runParam(url: URL): string | undefined {
  const run = url.searchParams.get('run');
  return run !== null && /^[0-9a-f-]{36}$/i.test(run) ? run : undefined;
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return '';
  }
}

/** One run for its page: who asked, for which agent, where it stands, and its pending requests. */
async function runSummary(access: InboxRunAccess) {
  const state = access.running ? await access.run.state() : await access.run.state().catch(() => undefined);
  return {
    workflowId: access.workflowId,
    firstRunId: access.firstRunId,
    ...(access.agent !== undefined ? { agent: access.agent } : {}),
    ...(access.owner !== undefined ? { userId: access.owner } : {}),
    ...(access.conversationId !== undefined ? { conversationId: access.conversationId } : {}),
    yours: access.yours,
    status: state?.status ?? (access.running ? 'running' : 'ended'),
    step: state?.step ?? 0,
    items: state ? itemsOf(access.workflowId, state) : [],
  };
}

/**
 * Decides an approval through the run's update with this user as approver, bound to the request's token (the run
 * checks both). A reviewer's decision asks the run to have it checked by the agent's `authorizeDecision`.
 */
async function decide(
  access: InboxRunAccess,
  toolCallId: string,
  decision: z.infer<typeof approvalBody>,
  user: AuthenticatedUser,
  limits: { maxMessageBytes: number },
) {
  if (decision.reason !== undefined && utf8Length(decision.reason) > limits.maxMessageBytes) {
    throw HttpRefusal.of(RefusalCode.InputTooLarge, 'The reason is over maxMessageBytes: shorten it.');
  }
  ended(access);
  const decideOn: AgentRun['approve'] = decision.approved
    ? access.run.approve.bind(access.run)
    : access.run.deny.bind(access.run);
  return (
    (await decideOn(toolCallId, {
      token: decision.token,
      approver: user.userId,
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
      ...(access.yours ? {} : { requireAuthorization: true }),
    })) ?? null
  );
}

/** Answers an MCP question through the run's update, bound to its token; a reviewer's answer is checked by the agent. */
async function answer(
  access: InboxRunAccess,
  id: string,
  reply: z.infer<typeof answerBody>,
  user: AuthenticatedUser,
  limits: { maxMessageBytes: number },
) {
  if (reply.content !== undefined && jsonBytes(reply.content) > limits.maxMessageBytes) {
    throw HttpRefusal.of(RefusalCode.InputTooLarge, 'The answer is over maxMessageBytes: shorten it.');
  }
  ended(access);
  const record = await access.run.respondToElicitation(
    id,
    { action: reply.action, ...(reply.content !== undefined ? { content: reply.content } : {}) },
    { token: reply.token, responder: user.userId, ...(access.yours ? {} : { requireAuthorization: true }) },
  );
  return record ?? null;
}

/** Gives a client-side tool its result: the run's user only (a reviewer does not act as the user's page). */
async function submit(access: InboxRunAccess, toolCallId: string, result: z.infer<typeof toolResultBody>) {
  if (!access.yours) {
    throw HttpRefusal.of(
      RefusalCode.HttpNotRunUser,
      "Only the run's own user gives its client-side tools their results: ask them to submit it.",
    );
  }
  ended(access);
  await access.run.submitToolResult(toolCallId, result.output as JsonValue, result.isError ? { isError: true } : {});
}

function ended(access: InboxRunAccess): void {
  if (!access.running) throw HttpRefusal.of(RefusalCode.RunEnded, 'This run has ended: it waits for nothing.');
}

function json(body: unknown): Response {
  return Response.json(body, { headers: { 'cache-control': 'no-store' } });
}
