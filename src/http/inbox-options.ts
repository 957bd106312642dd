import type { AgentHandlerOptions, AuthenticatedUser } from './handler-options.js';

/**
 * Options of `createInboxHandler`: the agent handler's client, authentication and bounds (the same values mount both
 * handlers side by side), plus who reviews other users' runs.
 */
export interface InboxHandlerOptions extends Pick<
  AgentHandlerOptions,
  | 'client'
  | 'authenticate'
  | 'allowedOrigins'
  | 'origin'
  | 'maxBodyBytes'
  | 'maxMessageBytes'
  | 'keepAliveMs'
  | 'maxStreams'
  | 'maxStreamsPerUser'
  | 'streamBufferBytes'
  | 'slowStreamMs'
  | 'onError'
> {
  /**
   * Whether this user reviews other users' runs: sees everything waiting in the namespace and may open any run. Their
   * decisions and answers on a run that is not theirs are still checked by the run's agent (`authorizeDecision`;
   * without the hook the run refuses them), and only a run's own user gives its client-side tools their results.
   * Default: nobody; each user sees their own runs (the runs started with their `userId`).
   */
  reviewer?: (user: AuthenticatedUser, request: Request) => boolean | Promise<boolean>;
  /**
   * Only runs on this task queue (one app's, in a namespace several share). Default: every agent run of the namespace.
   */
  taskQueue?: string;
  /**
   * The `workflowIdPrefix` of the chat handler whose chats this inbox shows: a conversation page asked for a chat id
   * lists that user's chat of that id too. Default: the chat handler's default.
   */
  chatWorkflowIdPrefix?: string;
  /** Most waiting runs one listing reads (newest first; default 50, at most 200). */
  maxRuns?: number;
  /** How long a listing waits for one run's state before it shows the run as unavailable (ms, default 5 s). */
  stateTimeoutMs?: number;
}

/** Defaults of the inbox's own bounds. */
export const INBOX_DEFAULTS = { maxRuns: 50, stateTimeoutMs: 5_000 } as const;

/** The most runs a listing may be configured to read. */
export const MAX_INBOX_RUNS = 200;
