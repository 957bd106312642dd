import type { ConversationMessage } from '../src/protocol/conversation.js';

/** Parts of one message, at most. */
export const MAX_MESSAGE_PARTS = 64;

/**
 * A well-formed message: text, or user content parts (text, image, file) a model accepts. Anything else is refused
 * before it is queued: a part the model call rejects would fail that turn and, kept in the transcript, every next one.
 */
export function isConversationMessage(message: unknown): message is ConversationMessage {
  if (typeof message !== 'object' || message === null) return false;
  const { content, userId, interrupt, watched } = message as Partial<ConversationMessage>;
  if (userId !== undefined && typeof userId !== 'string') return false;
  if (interrupt !== undefined && typeof interrupt !== 'boolean') return false;
  if (watched !== undefined && typeof watched !== 'boolean') return false;
  if (typeof content === 'string') return true;
  if (!Array.isArray(content) || content.length === 0 || content.length > MAX_MESSAGE_PARTS) return false;
  return content.every(isUserPart);
}

function isUserPart(part: unknown): boolean {
  if (typeof part !== 'object' || part === null) return false;
  const { type, text, image, data, mediaType } = part as Record<string, unknown>;
  if (type === 'text') return typeof text === 'string';
  if (type === 'image') return typeof image === 'string' && (mediaType === undefined || typeof mediaType === 'string');
  if (type === 'file') return typeof data === 'string' && typeof mediaType === 'string';
  return false;
}
