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
   * Origins whose browsers may call the handler, besides its own (`origin`). A request with another
   * `Origin` is refused, so a cross-site page cannot ride on the user's cookies.
   */
  allowedOrigins?: string[];
  /**
   * The handler's own origin (`https://app.example`), which browsers' `Origin` must match (or be in `allowedOrigins`).
   * Default: the request URL's scheme and the `Host` header. Set it behind a proxy that rewrites `Host` or terminates
   * TLS.
   */
  origin?: string;
  /** Largest request body in UTF-8 bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Largest user message text, approval reason or answer in UTF-8 bytes (default 32 KiB). */
  maxMessageBytes?: number;
  /** How often an idle stream sends an SSE comment, in ms (default 15 s), so proxies keep it open. */
  keepAliveMs?: number;
  /** Most event streams (chat turns, AG-UI runs, run views) open at once through this handler (default 1,000). */
  maxStreams?: number;
  /** Most event streams one user has open at once (default 16); past it a request is refused 429, `retry-after`. */
  maxStreamsPerUser?: number;
  /**
   * Most bytes one stream holds that its client has not read (default 256 KiB, plus the event being written): the
   * run's stream is read no faster than the client reads.
   */
  streamBufferBytes?: number;
  /**
   * How long a client may read nothing while its stream's buffer is full (default 30 s): its stream then ends with an
   * `Http.SlowReader` event, and a client that does not read that either is disconnected.
   */
  slowStreamMs?: number;
  /** Prefix of the workflow ids of chats' conversations (default `chat-`); a turn's is `<conversation id>/turn-<n>`. */
  workflowIdPrefix?: string;
  /** Told of unexpected failures (answered 500 with no details). Default: `console.error`. */
  onError?: (error: unknown, request: Request) => void;
}

/** Defaults of the handler's bounds. */
export const DEFAULTS = {
  maxBodyBytes: 1024 * 1024,
  maxMessageBytes: 32 * 1024,
  keepAliveMs: 15_000,
  maxStreams: 1_000,
  maxStreamsPerUser: 16,
  streamBufferBytes: 256 * 1024,
  slowStreamMs: 30_000,
};

/** A chat's conversation options that {@link AgentHandlerOptions.conversationOptions} may set. */
export type ChatConversationOptions = Omit<ConversationOptions, 'agent' | 'userId'>;
