// Workflow-safe. The custom search attributes runs publish so that an inbox finds, through Temporal visibility,
// everything that waits for a person across runs and conversations, without reading each run.
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** What a run can wait for a person for, as `DurableAgentWaiting` lists it. */
export type WaitingKind = 'approval' | 'elicitation' | 'client-tool';

/** Every {@link WaitingKind}, in the order the attribute lists them. */
export const WAITING_KINDS: readonly WaitingKind[] = ['approval', 'elicitation', 'client-tool'];

/**
 * The search attributes of durable-agent, by role: their names and their types as the Temporal CLI spells them
 * (`temporal operator search-attribute create --name <name> --type <type>`). A namespace must have all of them for
 * runs to publish any (docs/web.md, "Finding what waits").
 *
 * - `waiting`: what the run waits for now (`approval`, `elicitation`, `client-tool`); unset when nothing.
 * - `waitingSince`: when the run began waiting for people (it keeps the time while any request stays pending); unset
 *   when nothing waits.
 * - `user`: {@link userKey} of the run's `userId` (a claim of whoever started it), never the id itself: search
 *   attributes are stored unencrypted, out of the payload codec's reach, and user ids are often personal data.
 * - `agent`, `conversation`: the run's agent's name and its `conversationId`, as they are.
 *
 * The identity attributes are set once when the run starts.
 */
export const SEARCH_ATTRIBUTES = {
  waiting: { name: 'DurableAgentWaiting', type: 'KeywordList' },
  waitingSince: { name: 'DurableAgentWaitingSince', type: 'Datetime' },
  user: { name: 'DurableAgentUser', type: 'Keyword' },
  agent: { name: 'DurableAgentName', type: 'Keyword' },
  conversation: { name: 'DurableAgentConversation', type: 'Keyword' },
} as const;

/** A search attribute's type as the Temporal CLI and `temporal operator search-attribute create` spell it. */
export type SearchAttributeCliType = (typeof SEARCH_ATTRIBUTES)[keyof typeof SEARCH_ATTRIBUTES]['type'];

/** Each attribute as the dev server's `--search-attribute` flag takes it: `Name=Type`. */
export function searchAttributeFlags(): string[] {
  return Object.values(SEARCH_ATTRIBUTES).map(({ name, type }) => `${name}=${type}`);
}

/** The attributes as typed keys, for `upsertSearchAttributes` in the run and `typedSearchAttributes` in clients. */
export const SEARCH_ATTRIBUTE_KEYS = {
  waiting: defineSearchAttributeKey(SEARCH_ATTRIBUTES.waiting.name, SearchAttributeType.KEYWORD_LIST),
  waitingSince: defineSearchAttributeKey(SEARCH_ATTRIBUTES.waitingSince.name, SearchAttributeType.DATETIME),
  user: defineSearchAttributeKey(SEARCH_ATTRIBUTES.user.name, SearchAttributeType.KEYWORD),
  agent: defineSearchAttributeKey(SEARCH_ATTRIBUTES.agent.name, SearchAttributeType.KEYWORD),
  conversation: defineSearchAttributeKey(SEARCH_ATTRIBUTES.conversation.name, SearchAttributeType.KEYWORD),
};

/**
 * What `DurableAgentUser` holds for a user id: the first 24 hex digits of its SHA-256, as the web handler's workflow
 * ids do. A query for one user's runs compares with it: `DurableAgentUser = '<userKey(userId)>'`.
 */
export function userKey(userId: string): string {
  return bytesToHex(sha256(utf8ToBytes(userId))).slice(0, 24);
}
