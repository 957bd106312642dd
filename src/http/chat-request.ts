// The body `useChat`'s DefaultChatTransport posts (`ai` 7: `{ id, messages, trigger, messageId }`), read as
// untrusted input: only the last message counts, the rest of the history is never used to decide anything.
import { z } from 'zod';
import { utf8Length } from '../protocol/bytes.js';
import { RefusalCode } from '../protocol/refusal-codes.js';
import { HttpRefusal } from './http-refusal.js';
import { malformed } from './read-body.js';

/** Chat ids as a page may choose them: `useChat`'s generated ids, UUIDs, slugs. */
export const CHAT_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Most messages a chat body may hold (a longer history is refused: the server keeps the real one). */
const MAX_MESSAGES = 1_000;
/** Most parts in one message. */
const MAX_PARTS = 1_000;

const partSchema = z.looseObject({ type: z.string().max(200) });
const messageSchema = z.looseObject({
  id: z.string().max(200),
  role: z.enum(['user', 'assistant', 'system']),
  parts: z.array(partSchema).max(MAX_PARTS),
  metadata: z.unknown().optional(),
});
const bodySchema = z.looseObject({
  id: z.string(),
  messages: z.array(messageSchema).min(1).max(MAX_MESSAGES),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().max(200).optional(),
});

const approvalPartSchema = z.looseObject({
  type: z.string(),
  toolCallId: z.string().max(200),
  state: z.literal('approval-responded'),
  approval: z.looseObject({
    id: z.string().max(300),
    approved: z.boolean(),
    reason: z.string().optional(),
    signature: z.string().max(300).optional(),
  }),
});

/** An approval response the page sends back (a tool part in the `approval-responded` state). */
export interface ApprovalResponse {
  toolCallId: string;
  approvalId: string;
  approved: boolean;
  reason?: string;
  /** The run's token the request carried, echoed by the page. */
  token?: string;
}

/** What a chat POST asks for. */
export type ChatRequest =
  | { kind: 'message'; chatId: string; text: string; messageId: string }
  | { kind: 'approvals'; chatId: string; approvals: ApprovalResponse[]; from: number };

/** Reads a chat POST body; refuses what is malformed, over its bounds, or unsupported. */
export function parseChatRequest(body: unknown, limits: { maxMessageBytes: number }): ChatRequest {
  const parsed = bodySchema.safeParse(body);
  if (!parsed.success) throw malformed(`${describeIssue(parsed.error)} (expected useChat's { id, messages, trigger })`);
  const { id: chatId, messages, trigger } = parsed.data;
  if (!CHAT_ID.test(chatId)) throw malformed('the chat id must be 1 to 128 letters, digits, "-" or "_"');
  if (trigger === 'regenerate-message') {
    throw HttpRefusal.of(
      RefusalCode.HttpUnsupported,
      'Regenerating a message is not supported: a durable run is not replayed. Send a new message instead.',
    );
  }
  const last = messages[messages.length - 1]!;
  if (last.role === 'user') {
    const text = last.parts
      .flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : []))
      .join('\n');
    if (text.trim() === '') {
      throw HttpRefusal.of(RefusalCode.HttpUnsupported, 'The last message has no text: send a text part.');
    }
    if (utf8Length(text) > limits.maxMessageBytes) {
      throw HttpRefusal.of(
        RefusalCode.InputTooLarge,
        `The message is over ${limits.maxMessageBytes} bytes (maxMessageBytes): send a shorter one.`,
      );
    }
    return { kind: 'message', chatId, text, messageId: last.id };
  }
  if (last.role !== 'assistant') throw malformed("the last message must be the user's or an approval response");
  const approvals: ApprovalResponse[] = [];
  for (const part of last.parts) {
    if (!(part.type.startsWith('tool-') || part.type === 'dynamic-tool') || part.state !== 'approval-responded') {
      continue;
    }
    const approval = approvalPartSchema.safeParse(part);
    if (!approval.success) throw malformed(`an approval response: ${describeIssue(approval.error)}`);
    const { toolCallId, approval: a } = approval.data;
    if (a.reason !== undefined && utf8Length(a.reason) > limits.maxMessageBytes) {
      throw HttpRefusal.of(RefusalCode.InputTooLarge, 'The approval reason is over maxMessageBytes.');
    }
    approvals.push({
      toolCallId,
      approvalId: a.id,
      approved: a.approved,
      ...(a.reason !== undefined ? { reason: a.reason } : {}),
      ...(a.signature !== undefined ? { token: a.signature } : {}),
    });
  }
  if (approvals.length === 0) {
    throw HttpRefusal.of(
      RefusalCode.HttpUnsupported,
      "The last message is the assistant's but carries no approval response: send a user message.",
    );
  }
  return { kind: 'approvals', chatId, approvals, from: streamOffsetOf(last.metadata) };
}

/**
 * Where the page's copy of the turn ends: the offset the handler put in the message's metadata when the previous
 * response ended. Only where to go on reading (a wrong one repeats or skips text on this user's own page).
 */
function streamOffsetOf(metadata: unknown): number {
  const offset = (metadata as { durableAgent?: { offset?: unknown } } | undefined)?.durableAgent?.offset;
  return typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0 ? offset : 0;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid body';
  const path = issue.path.length > 0 ? issue.path.join('.') : 'body';
  return `${path}: ${issue.message}`;
}
