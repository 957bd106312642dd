import type { ModelMessage } from 'ai';
import type { Logger } from '../../logger.js';

/** The run a retrieval belongs to, passed through from the agent or the tool call. */
export interface RetrieveOptions {
  operationId?: string;
  userId?: string;
  conversationId?: string;
  context?: Map<string, unknown>;
  logger?: Logger;
  abortSignal?: AbortSignal;
}

/** Anything that can find text relevant to an input. */
export interface Retriever {
  retrieve(input: string | ModelMessage[], options: RetrieveOptions): Promise<string>;
}

/** Options of a `BaseRetriever`. Extra keys are kept for subclasses. */
export interface RetrieverOptions {
  /** Name of the retriever's tool. Default `search_knowledge`. */
  toolName?: string;
  /** Description of the retriever's tool. */
  toolDescription?: string;
  logger?: Logger;
  [key: string]: unknown;
}

/** Default name of a retriever tool. */
export const DEFAULT_RETRIEVER_TOOL_NAME = 'search_knowledge';

/** Default description of a retriever tool. */
export const DEFAULT_RETRIEVER_TOOL_DESCRIPTION =
  'Searches for relevant information in the knowledge base based on the query.';
