// What every route shares: who asks, the bounds it applies, and the refusals the routes have in common.
import { timingSafeEqual } from 'node:crypto';
import { userKey } from '../protocol/index.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import type { AuthenticatedUser, DEFAULTS } from './handler-options.js';
import { HttpRefusal } from './http-refusal.js';
import type { StreamSlots } from './stream-slots.js';

export type Settings = typeof DEFAULTS;

/** The chat handler's default workflow id prefix of a chat's conversation (`workflowIdPrefix`). */
export const DEFAULT_CHAT_PREFIX = 'chat-';

/**
 * The conversation id (and workflow id) of user `userId`'s chat `chatId`: the user is part of it (as a hash), so
 * another user's chat of the same id is another conversation, never found.
 */
export function chatConversationId(prefix: string, userId: string, chatId: string): string {
  return `${prefix}${userKey(userId)}-${chatId}`;
}

export interface RequestContext {
  request: Request;
  user: AuthenticatedUser;
  /** The workflow id of a chat's conversation: the user is part of it, so another user's chat is never found. */
  conversationId: (chatId: string) => string;
  settings: Settings;
  onError: (error: unknown, request: Request) => void;
  /** The handler's open event streams: a route that answers with one takes a slot first. */
  streams: StreamSlots;
}

export function sameToken(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function notFound(message: string): HttpRefusal {
  return HttpRefusal.of(RefusalCode.HttpNotFound, message);
}

/** A request that needs a running turn, in a chat whose turns have all ended. */
export function noRunningTurn(what: string): HttpRefusal {
  return HttpRefusal.of(RefusalCode.RunEnded, `No turn of this chat is running: it ${what}.`);
}
