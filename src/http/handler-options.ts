import type { AgentClient } from '../client/agent-client.js';
import type { ConversationOptions } from '../client/conversation.js';

/** Who a request comes from, as `authenticate` vouches. */
export interface AuthenticatedUser {
  /** Stable id of the user: runs are theirs alone (stored as the run's `userId`). */
  userId: string;
}

/** What {@link AgentHandlerOptions.conversationOptions} is given to choose a chat's conversation options. */
export interface ChatTurnContext {
  user: AuthenticatedUser;
  chatId: string;
  request: Request;
}

/** Options of {@link createAgentHandler}. */
export interface AgentHandlerOptions {
  /** Starts and finds the runs. */
  client: AgentClient;
  /** The agent that answers: each chat is a conversation with it, each message a turn (a run). */
  agent: string;
  /**
   * Who sends the request (a session cookie, a bearer token…), or `null`/`undefined` to refuse it with 401. Required:
   * every route needs a user, and a run is only ever served to the user who started it.
   */
  authenticate: (
    request: Request,
  ) => AuthenticatedUser | null | undefined | Promise<AuthenticatedUser | null | undefined>;
  /**
   * More options of a chat's conversation (turn settings such as `maxSteps`, `context`, `limits`, `compaction`, task
   * queue, Temporal workflow options). They apply when the chat's first message creates it; later messages join it
   * as it is. The agent, the user and the workflow id are the handler's.
   */
  conversationOptions?: (context: ChatTurnContext) => ChatConversationOptions | Promise<ChatConversationOptions>;
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
  /** Prefix of the workflow ids of chats' conversations (default `chat-`); a turn's is `<conversation id>/turn-<n>`. */
  workflowIdPrefix?: string;
  /** Told of unexpected failures (answered 500 with no details). Default: `console.error`. */
  onError?: (error: unknown, request: Request) => void;
}

/** Defaults of the handler's bounds. */
export const DEFAULTS = { maxBodyBytes: 1024 * 1024, maxMessageBytes: 32 * 1024, keepAliveMs: 15_000 };

/** A chat's conversation options that {@link AgentHandlerOptions.conversationOptions} may set. */
export type ChatConversationOptions = Omit<ConversationOptions, 'agent' | 'userId'>;
