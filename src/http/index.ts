// `durable-agent/http`: durable runs for web frontends. A standard fetch handler (Next.js route handlers, Hono,
// Bun, Deno) speaking the AI SDK's UI message stream, and an adapter for Node's `http`. See docs/web.md.
export { createAgentHandler } from './agent-handler.js';
export type { AgentHandlerOptions, AuthenticatedUser, ChatTurnContext } from './handler-options.js';
export { createInboxHandler } from './inbox-handler.js';
export type { InboxHandlerOptions } from './inbox-options.js';
export type { InboxItem, InboxListing, InboxRun } from './inbox-listing.js';
export type { ConversationListing, ConversationRun } from './inbox-conversation.js';
export { toNodeListener } from './node-listener.js';
export { UI_MESSAGE_STREAM_HEADERS } from './sse.js';
export { approvalIdOf, UiMessageChunkMapper, type ElicitationData, type WebStreamPart } from './ui-message-chunks.js';
export { RefusalCode } from '../protocol/refusal-codes.js';
export type { ChatConversationOptions } from './handler-options.js';
