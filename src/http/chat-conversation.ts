// A chat is a durable conversation: one `durableAgentConversation` workflow per (user, chat id), created by the
// chat's first message, whose turns are the runs every route serves. The conversation's workflow id names the user
// and its memo is checked on every lookup, so another user's chat is never found. Finding the running turn asks
// Temporal's server (the conversation's pending child), not a worker: a page can rejoin a chat while no worker runs.
import { createHash } from 'node:crypto';
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Conversation, ConversationTurn } from '../client/conversation.js';
import { throughWorker } from '../client/through-worker.js';
import { conversationStateQuery } from '../protocol/conversation.js';
import type { RequestContext } from './chat-turns.js';
import { notFound } from './chat-turns.js';
import type { AgentHandlerOptions } from './handler-options.js';

/** A turn of a chat, as the routes serve it. */
export interface ChatTurn {
  /** The turn's run (it waits for the run to start when the turn is still queued). */
  run: ConversationTurn;
  /** The turn's number in the conversation, from 1. */
  turn: number;
  /** The id of the assistant message the turn's UI message stream builds: stable across responses and reloads. */
  messageId: string;
}

/** A chat of this user's that exists, with what Temporal's server says about its conversation workflow. */
export interface FoundChat {
  chatId: string;
  conversation: Conversation;
  handle: WorkflowHandle;
  description: WorkflowExecutionDescription;
}

/** How long the handler asks a worker which turns come next (a chat between turns, a reconnect to a queued turn). */
const NEXT_TURN_QUERY_MS = 5_000;

/** The handle of the chat's conversation (no call is made). */
export function chatConversation(options: AgentHandlerOptions, context: RequestContext, chatId: string): Conversation {
  return options.client.conversation(context.conversationId(chatId), {
    agent: options.agent,
    userId: context.user.userId,
  });
}

/** The chat's conversation if it exists and is this user's; undefined otherwise (never another user's). */
export async function findChat(
  options: AgentHandlerOptions,
  context: RequestContext,
  chatId: string,
): Promise<FoundChat | undefined> {
  const found = await lookUp(options, context, chatId);
  return found === 'none' || found === 'foreign' ? undefined : found;
}

async function lookUp(
  options: AgentHandlerOptions,
  context: RequestContext,
  chatId: string,
): Promise<FoundChat | 'none' | 'foreign'> {
  const conversation = chatConversation(options, context, chatId);
  const handle = options.client.temporal.workflow.getHandle(conversation.id);
  let description;
  try {
    description = await handle.describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'none';
    throw error;
  }
  // The workflow id already names the user; the memo is checked too, so a workflow started otherwise is never served.
  if (description.memo?.webUser !== context.user.userId) return 'foreign';
  return { chatId, conversation, handle, description };
}

/**
 * Sends `text` as the chat's next turn: the first message creates the conversation (update-with-start, so two first
 * messages at once make one conversation), a message sent while a turn runs is queued behind it. Waits until a worker
 * has taken the message.
 *
 * @throws RunRequestRejectedError when the conversation refuses it (`Conversation.QueueFull`, `Conversation.Ended`…).
 */
export async function sendChatMessage(
  options: AgentHandlerOptions,
  context: RequestContext,
  chatId: string,
  text: string,
  /** The page's id of the message: the same message (id and text) sent again is the same turn. */
  messageId?: string,
): Promise<ChatTurn> {
  // A workflow with this id that is not this user's chat (started outside the handler) is never written to.
  if ((await lookUp(options, context, chatId)) === 'foreign') throw notFound(`No chat ${chatId} of yours.`);
  const extra = (await options.conversationOptions?.({ user: context.user, chatId, request: context.request })) ?? {};
  const { userId } = context.user;
  const conversation = options.client.conversation(context.conversationId(chatId), {
    ...extra,
    agent: options.agent,
    userId,
    // Tools see the conversation's id as `conversationId` (it names the user); the page's chat id is in the context.
    context: { ...extra.context, chatId },
    workflow: { ...extra.workflow, memo: { ...extra.workflow?.memo, webUser: userId, webChat: chatId } },
  });
  // The send is idempotent by the page's message id and the text: a retry is the same turn, while a page that
  // reuses ids (a new tab counting from 1 again) sends its new message.
  const key =
    messageId !== undefined
      ? `${messageId}:${createHash('sha256').update(text).digest('hex').slice(0, 16)}`
      : undefined;
  // Every route streams the turn it sends: watched from its first piece.
  return chatTurn(
    chatId,
    await conversation.send(text, { watched: true, ...(key !== undefined ? { messageId: key } : {}) }),
  );
}

/** Turn `turn` of a found chat (no call is made: a queued turn's methods wait for its run to start). */
export function turnOf(chat: FoundChat, turn: number): ChatTurn {
  return chatTurn(chat.chatId, chat.conversation.turn(turn));
}

/**
 * Turn `turn` of a found chat if its run has started or it waits in the queue; undefined otherwise (a turn number the
 * chat never had is not waited for).
 */
export async function existingTurn(chat: FoundChat, turn: number): Promise<ChatTurn | undefined> {
  const found = turnOf(chat, turn);
  try {
    await found.run.handle.describe();
    return found;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  if (chat.description.status.name !== 'RUNNING') return undefined;
  return (await comingTurns(chat)).includes(turn) ? found : undefined;
}

/**
 * The chat's running turn: the conversation's child run, as Temporal's server records it (no worker asked). With
 * `next`, a chat between turns (its workflow busy: a turn's record being written, the next turn starting) answers
 * the turn that comes next, which a worker is asked for; an idle chat answers undefined at once.
 */
export async function runningTurn(chat: FoundChat, options: { next?: boolean } = {}): Promise<ChatTurn | undefined> {
  const { description } = chat;
  if (description.status.name !== 'RUNNING') return undefined;
  for (const child of description.raw.pendingChildren ?? []) {
    const turn = turnNumberOf(chat.conversation.id, child.workflowId ?? '');
    if (turn !== undefined) return turnOf(chat, turn);
  }
  if (!options.next) return undefined;
  // Idle, a conversation waits for a message with nothing pending: no worker needs to be asked.
  const busy = (description.raw.pendingActivities?.length ?? 0) > 0 || description.raw.pendingWorkflowTask != null;
  if (!busy) return undefined;
  const [next] = await comingTurns(chat);
  return next !== undefined ? turnOf(chat, next) : undefined;
}

/** The running turn and the queued ones, in order, as the conversation (a worker) answers. */
async function comingTurns(chat: FoundChat): Promise<number[]> {
  const state = await throughWorker(chat.handle, () => chat.handle.query(conversationStateQuery), {
    request: 'the conversation state query',
    timeoutMs: NEXT_TURN_QUERY_MS,
  });
  return [...(state.currentTurn ? [state.currentTurn.turn] : []), ...state.queued.map((queued) => queued.turn)];
}

function chatTurn(chatId: string, run: ConversationTurn): ChatTurn {
  return { run, turn: run.turn, messageId: `msg-${chatId}-turn-${run.turn}` };
}

/** The turn number of a conversation's child workflow id (`<conversation id>/turn-<n>`), if it is one. */
function turnNumberOf(conversationId: string, workflowId: string): number | undefined {
  const prefix = `${conversationId}/turn-`;
  if (!workflowId.startsWith(prefix)) return undefined;
  const turn = Number(workflowId.slice(prefix.length));
  return Number.isSafeInteger(turn) && turn > 0 ? turn : undefined;
}
