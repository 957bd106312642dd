import type { ModelMessage } from 'ai';
import type { Tool } from '../tool.js';
import { createRetrieverTool } from './create-retriever-tool.js';
import {
  DEFAULT_RETRIEVER_TOOL_DESCRIPTION,
  DEFAULT_RETRIEVER_TOOL_NAME,
  type RetrieveOptions,
  type Retriever,
  type RetrieverOptions,
} from './types.js';

/**
 * Base class of retrievers. Implement `retrieve`; the instance then works as an agent's `retriever` (its text is
 * added to the system prompt) and exposes `.tool` for on-demand search. `retrieve` is bound to the instance, so
 * `const { retrieve } = retriever` works.
 */
export abstract class BaseRetriever implements Retriever {
  /** A shallow copy of the constructor options. */
  protected readonly options: RetrieverOptions;
  /** The retriever as a tool (`search_knowledge` unless `toolName` says otherwise). */
  readonly tool: Tool;

  constructor(options: RetrieverOptions = {}) {
    this.options = { ...options };
    const bound = this.retrieve.bind(this);
    // Bound once here rather than with an arrow property, so subclasses can keep declaring it as a method.
    Object.defineProperty(this, 'retrieve', { value: bound, writable: true, configurable: true });
    this.tool = createRetrieverTool(this, {
      name: this.options.toolName ?? DEFAULT_RETRIEVER_TOOL_NAME,
      description: this.options.toolDescription ?? DEFAULT_RETRIEVER_TOOL_DESCRIPTION,
    });
  }

  /** Finds text relevant to the input (a query string or the conversation). */
  abstract retrieve(input: string | ModelMessage[], options: RetrieveOptions): Promise<string>;
}
