import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline } from '../../src/tool/pipeline.js';
import { BaseRetriever } from '../../src/tool/retriever/base-retriever.js';
import { createRetrieverTool } from '../../src/tool/retriever/create-retriever-tool.js';
import type { RetrieveOptions, RetrieverOptions } from '../../src/tool/retriever/types.js';
import { toJsonSchema } from '../../src/tool/schema.js';
import { captureLogs, messagesAt } from './support/log-capture.js';

const logs = captureLogs();

class DocsRetriever extends BaseRetriever {
  readonly calls: { input: string | ModelMessage[]; options: RetrieveOptions }[] = [];
  private readonly prefix = 'doc:';

  constructor(options?: RetrieverOptions) {
    super(options);
  }

  async retrieve(input: string | ModelMessage[], options: RetrieveOptions): Promise<string> {
    this.calls.push({ input, options });
    return `${this.prefix}${typeof input === 'string' ? input : 'messages'}`;
  }
}

describe('BaseRetriever', () => {
  it('exposes a search_knowledge tool with the default description and a { query } parameter', () => {
    const { tool } = new DocsRetriever();
    expect(tool.name).toBe('search_knowledge');
    expect(tool.description).toBe('Searches for relevant information in the knowledge base based on the query.');
    expect(toJsonSchema(tool.parameters)).toMatchObject({
      type: 'object',
      properties: { query: { type: 'string', description: 'The search query to find relevant information' } },
      required: ['query'],
    });
  });

  it('uses toolName and toolDescription from its options', () => {
    const { tool } = new DocsRetriever({ toolName: 'search_docs', toolDescription: 'Search the docs' });
    expect(tool).toMatchObject({ name: 'search_docs', description: 'Search the docs' });
  });

  it('keeps retrieve bound, so destructuring works', async () => {
    const retriever = new DocsRetriever();
    // eslint-disable-next-line @typescript-eslint/unbound-method -- detaching it is exactly what is tested
    const { retrieve } = retriever;
    expect(await retrieve('q', {})).toBe('doc:q');
  });

  it('returns the retriever text unchanged and passes userId, conversationId and context through', async () => {
    const retriever = new DocsRetriever();
    const context = new Map<string, unknown>([['tenant', 'acme']]);
    const options = createToolExecuteOptions({
      toolName: 'search_knowledge',
      toolCallId: 'c1',
      userId: 'u1',
      conversationId: 'conv-1',
      context,
    });
    const outcome = await runToolPipeline({
      tool: retriever.tool,
      args: { query: 'refunds' },
      toolCallId: 'c1',
      options,
    });
    expect(outcome).toMatchObject({ kind: 'ok', output: 'doc:refunds' });
    expect(retriever.calls[0]!.input).toBe('refunds');
    expect(retriever.calls[0]!.options).toMatchObject({ userId: 'u1', conversationId: 'conv-1', context });
  });
});

describe('createRetrieverTool', () => {
  it('has the same defaults and accepts a name and description', () => {
    const retriever = { retrieve: async () => 'x' };
    expect(createRetrieverTool(retriever)).toMatchObject({
      name: 'search_knowledge',
      description: 'Searches for relevant information in the knowledge base based on the query.',
    });
    expect(createRetrieverTool(retriever, { name: 'kb', description: 'KB' })).toMatchObject({
      name: 'kb',
      description: 'KB',
    });
  });

  it('logs a failing retriever and lets the model see the error', async () => {
    const tool = createRetrieverTool({
      retrieve: async () => {
        throw new Error('index offline');
      },
    });
    const outcome = await runToolPipeline({
      tool,
      args: { query: 'q' },
      toolCallId: 'c1',
      options: createToolExecuteOptions({ toolName: tool.name, toolCallId: 'c1' }),
    });
    expect(outcome).toMatchObject({ kind: 'error', output: { message: 'index offline' } });
    expect(messagesAt(logs, 'error')).toEqual(["Retriever tool 'search_knowledge' failed"]);
  });
});
