// Where an AG-UI client's copy of a thread ends. AG-UI clients send the whole thread with every run, and a client
// that dropped mid-run and runs again sends the same last user message: the handler must rejoin that message's
// turn, not queue it a second time. So the handler marks what it sends: the user message that became a turn gets
// `metadata.durableAgent = { turn }` (echoed in a MESSAGES_SNAPSHOT), and every message event carries
// `{ turn, offset }`, which `@ag-ui/client` folds into the messages it sends back. The marks only say which of this
// user's turns to show and from where: a forged one shows this user their own chat, and decides nothing.
import { EventType, type AGUIEvent, type Message } from '@ag-ui/core';
import { jsonBytes } from '../protocol/bytes.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal } from './http-refusal.js';

/** The key of the handler's marks in AG-UI metadata. */
const KEY = 'durableAgent';

/** Events that build a message (or a tool call in one): `@ag-ui/client` merges their metadata into it. */
const MESSAGE_EVENTS: ReadonlySet<EventType> = new Set([
  EventType.TEXT_MESSAGE_START,
  EventType.TEXT_MESSAGE_CONTENT,
  EventType.TEXT_MESSAGE_END,
  EventType.TOOL_CALL_START,
  EventType.TOOL_CALL_ARGS,
  EventType.TOOL_CALL_END,
  EventType.TOOL_CALL_RESULT,
]);

/** Where a client's copy of a thread ends: the turn its last user message became, and the offset its copy reached. */
export interface ThreadPosition {
  turn: number;
  offset: number;
}

/** `event` marked with the turn and the offset after the part it comes from, when it builds a message. */
export function marked(event: AGUIEvent, position: ThreadPosition): AGUIEvent {
  if (!MESSAGE_EVENTS.has(event.type)) return event;
  return { ...event, metadata: { ...event.metadata, [KEY]: { turn: position.turn, offset: position.offset } } };
}

/** The thread's messages with the last user message marked as turn `turn` (for a MESSAGES_SNAPSHOT). */
export function markSent(messages: Message[], turn: number): Message[] {
  const at = messages.findLastIndex((message) => message.role === 'user');
  return messages.map((message, index) =>
    index === at ? ({ ...message, metadata: { ...message.metadata, [KEY]: { turn } } } as Message) : message,
  );
}

/**
 * Where the client's copy ends, when its last user message was already sent as a turn: that turn, and the largest
 * offset the messages after it carry for it (0 when none). Undefined when the last user message is new.
 */
export function positionOf(messages: Message[]): ThreadPosition | undefined {
  const at = messages.findLastIndex((message) => message.role === 'user');
  if (at === -1) return undefined;
  const turn = markOf(messages[at])?.turn;
  if (typeof turn !== 'number' || !Number.isSafeInteger(turn) || turn < 1) return undefined;
  let offset = 0;
  for (const message of messages.slice(at + 1)) {
    const marks = [markOf(message), ...toolCallsOf(message).map(markOf)];
    for (const mark of marks) {
      const at = mark?.offset;
      if (mark?.turn === turn && typeof at === 'number' && Number.isSafeInteger(at) && at > offset) offset = at;
    }
  }
  return { turn, offset };
}

function markOf(holder: unknown): { turn?: unknown; offset?: unknown } | undefined {
  const metadata = (holder as { metadata?: unknown } | undefined)?.metadata;
  const mark = metadata && typeof metadata === 'object' ? (metadata as Record<string, unknown>)[KEY] : undefined;
  return mark && typeof mark === 'object' ? (mark as { turn?: unknown; offset?: unknown }) : undefined;
}

function toolCallsOf(message: Message): unknown[] {
  const calls = (message as { toolCalls?: unknown }).toolCalls;
  return Array.isArray(calls) ? calls : [];
}

/** Bounds of the thread an AG-UI client sends (docs/limits.md): each response copies it and folds events into it. */
export const THREAD_LIMITS = {
  /** Messages in one request's thread. */
  messages: 1_000,
  /** Characters of a message id (the last user message's is the send's idempotency key). */
  messageIdChars: 200,
  /** Keys of one message's (or tool call's) metadata: every event of the message is merged into it. */
  metadataKeys: 64,
  /** UTF-8 bytes of the JSON of one message's (or tool call's) metadata. */
  metadataBytes: 16 * 1024,
} as const;

/**
 * Refuses a thread over {@link THREAD_LIMITS} before anything is done with it (sent, copied, streamed): metadata is
 * merged into the client's copy once per event, so its size must be small before the first event.
 *
 * @throws HttpRefusal `Input.TooLarge` (413) naming the bound, `Input.Malformed` (400) for a message id too long.
 */
export function checkThread(messages: readonly Message[]): void {
  if (messages.length > THREAD_LIMITS.messages) {
    throw HttpRefusal.of(RefusalCode.InputTooLarge, `The thread has over ${THREAD_LIMITS.messages} messages.`);
  }
  for (const message of messages) {
    if (message.id.length > THREAD_LIMITS.messageIdChars) {
      throw HttpRefusal.of(
        RefusalCode.InputMalformed,
        `Malformed request: a message id is over ${THREAD_LIMITS.messageIdChars} characters.`,
      );
    }
    for (const holder of [message, ...toolCallsOf(message)]) checkMetadata((holder as { metadata?: unknown }).metadata);
  }
}

function checkMetadata(metadata: unknown): void {
  if (metadata === undefined || metadata === null) return;
  const keys = typeof metadata === 'object' ? Object.keys(metadata).length : 0;
  if (keys > THREAD_LIMITS.metadataKeys || jsonBytes(metadata) > THREAD_LIMITS.metadataBytes) {
    throw HttpRefusal.of(
      RefusalCode.InputTooLarge,
      `A message's metadata is over ${THREAD_LIMITS.metadataKeys} keys or ${THREAD_LIMITS.metadataBytes} bytes.`,
    );
  }
}
