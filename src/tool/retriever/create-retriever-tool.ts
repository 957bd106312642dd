import { z } from 'zod';
import { createTool, type Tool } from '../tool.js';
import { DEFAULT_RETRIEVER_TOOL_DESCRIPTION, DEFAULT_RETRIEVER_TOOL_NAME, type Retriever } from './types.js';

/** Options of {@link createRetrieverTool}. */
export interface RetrieverToolOptions {
  /** Default `search_knowledge`. */
  name?: string;
  /** Default `Searches for relevant information in the knowledge base based on the query.` */
  description?: string;
}

const retrieverParameters = z.object({
  query: z.string().describe('The search query to find relevant information'),
});

/**
 * A tool that lets the model search with a retriever on demand. It returns the retriever's text unchanged and
 * passes the run's userId, conversationId and context through. Failures are logged and rethrown, so the model
 * sees them as a tool error.
 */
export function createRetrieverTool(
  retriever: Retriever,
  { name = DEFAULT_RETRIEVER_TOOL_NAME, description = DEFAULT_RETRIEVER_TOOL_DESCRIPTION }: RetrieverToolOptions = {},
): Tool<typeof retrieverParameters> {
  return createTool({
    name,
    description,
    parameters: retrieverParameters,
    execute: async ({ query }, options) => {
      try {
        return await retriever.retrieve(query, {
          operationId: options.operationId,
          userId: options.userId,
          conversationId: options.conversationId,
          context: options.context,
          logger: options.logger,
          abortSignal: options.abortSignal,
        });
      } catch (error) {
        options.logger.error(`Retriever tool '${name}' failed`, { error });
        throw error;
      }
    },
  });
}
