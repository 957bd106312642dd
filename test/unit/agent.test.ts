import { openai } from '@ai-sdk/openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from '../../src/agent/agent.js';
import type { AgentRunContext } from '../../src/agent/types.js';
import { createTool, type AnyTool } from '../../src/tool/tool.js';
import { createToolkit, type ToolItem } from '../../src/tool/toolkit.js';
import { captureLogs, messagesAt } from './support/log-capture.js';

const logs = captureLogs();

function makeTool(name: string, description = name): AnyTool {
  return createTool({ name, description, parameters: z.object({}), execute: () => name });
}
const ctx: AgentRunContext = { userId: 'u1', conversationId: 'c1', context: new Map([['plan', 'pro']]) };
const K1 = createToolkit({ name: 'k1', instructions: 'K1 INSTR', addInstructions: true, tools: [makeTool('a')] });

describe('Agent: tools', () => {
  it('registers static tools and toolkits; getTools leaves out provider tools', () => {
    const webSearch = { ...openai.tools.webSearch({}), name: 'web_search' };
    const agent = new Agent({ name: 'a', instructions: 'i', tools: [makeTool('x'), webSearch], toolkits: [K1] });
    expect(agent.getTools().map((t) => t.name)).toEqual(['x', 'a']);
    expect(agent.getToolManager().getAllToolNames()).toEqual(['x', 'web_search', 'a']);
    expect(agent.getToolsForApi().map((t) => t.name)).toEqual(['x', 'web_search', 'a']);
  });

  it('adds tools (one copy of the same tool), removes tools and toolkits', () => {
    const x = makeTool('x');
    const agent = new Agent({ name: 'a', instructions: 'i', toolkits: [K1] });
    expect(agent.addTools([x, x])).toEqual({ added: [x, x] });
    expect(agent.getTools().map((t) => t.name)).toEqual(['x', 'a']);
    expect(agent.removeTools(['x', 'nope', 'a'])).toEqual({ removed: ['x'] });
    expect(agent.removeToolkit('k1')).toBe(true);
    expect(agent.removeToolkit('k1')).toBe(false);
    expect(agent.getTools()).toEqual([]);
  });

  it('evaluates a tools function per run with the run context', async () => {
    const seen: AgentRunContext[] = [];
    const agent = new Agent({
      name: 'a',
      instructions: 'i',
      tools: (runCtx) => {
        seen.push(runCtx);
        return [makeTool(`for_${runCtx.userId}`)];
      },
    });
    expect(agent.getTools()).toEqual([]);
    expect((await agent.resolveRunTools(ctx)).getAllToolNames()).toEqual(['for_u1']);
    expect((await agent.resolveRunTools({ ...ctx, userId: 'u2' })).getAllToolNames()).toEqual(['for_u2']);
    expect(seen.map((c) => c.userId)).toEqual(['u1', 'u2']);
  });

  it('lets per-run tools override same-name static tools, standalone or in a toolkit', async () => {
    const staticX = makeTool('x', 'static');
    const runX = makeTool('x', 'per-run');
    const runA = makeTool('a', 'per-run a');
    const agent = new Agent({ name: 'a', instructions: 'i', toolkits: [K1], tools: () => [runX, runA] });
    agent.addTools([staticX]);
    const tools = await agent.resolveRunTools(ctx);
    expect(tools.getToolByName('x')).toBe(runX);
    expect(tools.getToolByName('a')).toBe(runA);
    expect(tools.getAllToolNames().sort()).toEqual(['a', 'x']);
    expect(tools.getToolsForApi().find((t) => t.name === 'x')?.description).toBe('per-run');
    // The agent's own tools are untouched.
    expect(agent.getToolManager().getToolByName('x')).toBe(staticX);
  });

  it('returns a fresh manager per run, so a run cannot change the agent', async () => {
    const agent = new Agent({ name: 'a', instructions: 'i', tools: [makeTool('x')] });
    const runTools = await agent.resolveRunTools(ctx);
    runTools.removeTool('x');
    expect(agent.getToolManager().getAllToolNames()).toEqual(['x']);
  });

  it('converts the approval timeout to milliseconds and rejects bad durations', () => {
    expect(new Agent({ name: 'a', instructions: 'i', approval: { timeout: '2h' } }).approvalTimeoutMs).toBe(7_200_000);
    expect(new Agent({ name: 'a', instructions: 'i', approval: { timeout: 1500 } }).approvalTimeoutMs).toBe(1500);
    expect(new Agent({ name: 'a', instructions: 'i' }).approvalTimeoutMs).toBeUndefined();
    expect(() => new Agent({ name: 'a', instructions: 'i', approval: { timeout: 'soon' } })).toThrow(
      "Invalid duration: 'soon'",
    );
  });

  it('requires a name and keeps its options', () => {
    expect(() => new Agent({ name: '', instructions: 'i' })).toThrow('Agent name is required');
    const hooks = { onToolStart: () => undefined };
    const agent = new Agent({ name: 'n', instructions: 'i', model: 'openai/gpt-4o-mini', maxSteps: 4, hooks });
    expect(agent).toMatchObject({ name: 'n', id: 'n', model: 'openai/gpt-4o-mini', maxSteps: 4, markdown: false });
    expect(agent.hooks).toBe(hooks);
  });
});

describe('Agent: system prompt', () => {
  const runtime = createToolkit({
    name: 'rt',
    instructions: 'RUNTIME INSTR',
    addInstructions: true,
    tools: [makeTool('r')],
  });

  it('adds static toolkit instructions, then per-run ones, then the markdown instruction', async () => {
    const agent = new Agent({
      name: 'a',
      instructions: 'BASE',
      toolkits: [K1],
      markdown: true,
      tools: () => [runtime],
    });
    const prompt = await agent.buildSystemPrompt({ input: 'hi', ctx });
    expect(prompt).toEqual({ text: 'BASE\n\nK1 INSTR\n\nRUNTIME INSTR\n\nUse markdown to format your answers.' });
  });

  it('skips toolkits without addInstructions or without instructions', async () => {
    const quiet = createToolkit({ name: 'quiet', instructions: 'HIDDEN', tools: [makeTool('q')] });
    const empty = createToolkit({ name: 'empty', addInstructions: true, tools: [makeTool('e')] });
    const agent = new Agent({ name: 'a', instructions: 'BASE', toolkits: [quiet, empty, K1] });
    expect((await agent.buildSystemPrompt({ input: 'hi', ctx })).text).toBe('BASE\n\nK1 INSTR');
  });

  it('replaces a same-name static toolkit in place with the per-run one', async () => {
    const k2 = createToolkit({ name: 'k2', instructions: 'K2 INSTR', addInstructions: true, tools: [makeTool('b')] });
    const k1Run = createToolkit({ name: 'k1', instructions: 'K1 RUN', addInstructions: true, tools: [makeTool('a')] });
    const agent = new Agent({ name: 'a', instructions: 'BASE', toolkits: [K1, k2], tools: () => [k1Run, runtime] });
    const tools = await agent.resolveRunTools(ctx);
    expect(tools.getToolkits().map((k) => k.name)).toEqual(['k1', 'k2', 'rt']);
    expect((await agent.buildSystemPrompt({ input: 'hi', ctx, tools })).text).toBe(
      'BASE\n\nK1 RUN\n\nK2 INSTR\n\nRUNTIME INSTR',
    );
  });

  it('evaluates instructions given as a function of the run', async () => {
    const agent = new Agent({ name: 'a', instructions: (c) => `Hello ${c.userId}` });
    expect((await agent.buildSystemPrompt({ input: 'hi', ctx })).text).toBe('Hello u1');
  });

  it('appends the retriever context and passes the input, userId, conversationId and context', async () => {
    const calls: unknown[] = [];
    const agent = new Agent({
      name: 'a',
      instructions: 'BASE',
      markdown: true,
      retriever: {
        retrieve: async (input, options) => {
          calls.push({ input, options });
          return 'Refunds take 5 days.';
        },
      },
    });
    const prompt = await agent.buildSystemPrompt({ input: 'How long do refunds take?', ctx });
    expect(prompt).toEqual({
      text: 'BASE\n\nUse markdown to format your answers.\n\nRelevant Context:\nRefunds take 5 days.',
    });
    expect(calls).toEqual([
      {
        input: 'How long do refunds take?',
        options: expect.objectContaining({ userId: 'u1', conversationId: 'c1', context: ctx.context }),
      },
    ]);
  });

  it('ignores blank retriever text', async () => {
    const agent = new Agent({ name: 'a', instructions: 'BASE', retriever: { retrieve: async () => '  \n ' } });
    expect(await agent.buildSystemPrompt({ input: 'q', ctx })).toEqual({ text: 'BASE' });
  });

  it('logs a failing retriever, reports it, and builds the prompt without it', async () => {
    const agent = new Agent({
      name: 'a',
      instructions: 'BASE',
      toolkits: [K1],
      retriever: {
        retrieve: async () => {
          throw new Error('vector store unreachable');
        },
      },
    });
    expect(await agent.buildSystemPrompt({ input: 'q', ctx })).toEqual({
      text: 'BASE\n\nK1 INSTR',
      retrieverError: 'vector store unreachable',
    });
    expect(messagesAt(logs, 'error')).toEqual(['Failed to retrieve context']);
  });

  it('does not add the retriever tool automatically', async () => {
    const agent = new Agent({ name: 'a', instructions: 'i', retriever: { retrieve: async () => 'x' } });
    expect((await agent.resolveRunTools(ctx)).getAllToolNames()).toEqual([]);
  });

  it('accepts every kind of tool item', () => {
    const items: ToolItem[] = [makeTool('x'), K1, { ...openai.tools.webSearch({}), name: 'web_search' }];
    expect(new Agent({ name: 'a', instructions: 'i', tools: items }).getToolManager().getAllToolNames()).toEqual([
      'x',
      'web_search',
      'a',
    ]);
  });

  it('keeps a valid toolRouting and refuses an invalid one when the agent is defined', () => {
    const routed = new Agent({ name: 'r', instructions: '', toolRouting: { topK: 3 } });
    expect(routed.toolRouting).toEqual({ topK: 3 });
    expect(new Agent({ name: 'ok', instructions: '', toolRouting: false }).toolRouting).toBe(false);
    expect(() => new Agent({ name: 'bad', instructions: '', toolRouting: { topk: 3 } as never })).toThrow(
      /Unknown toolRouting option 'topk'/,
    );
    expect(
      () => new Agent({ name: 'reserved', instructions: '', toolRouting: { expose: [makeTool('searchTools')] } }),
    ).toThrow(/Tool routing reserves tool names searchTools/);
  });
});
