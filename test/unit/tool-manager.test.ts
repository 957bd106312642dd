import { openai } from '@ai-sdk/openai';
import { jsonSchema, tool as aiTool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkToolCall } from '../../src/tool/check-tool-call.js';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { isProviderTool } from '../../src/tool/provider-tool.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import { createTool, Tool, type AnyTool } from '../../src/tool/tool.js';
import { createToolkit, type ToolItem } from '../../src/tool/toolkit.js';
import { captureLogs, messagesAt } from './support/log-capture.js';

const logs = captureLogs();

function makeTool(name: string, description = `the ${name} tool`, execute?: () => unknown): AnyTool {
  return createTool({ name, description, parameters: z.object({ q: z.string().optional() }), execute });
}

describe('ToolManager: standalone tools', () => {
  it('adds tools and toolkits through addItems', async () => {
    const manager = new ToolManager();
    manager.addItems([makeTool('a'), { name: 'kit', tools: [makeTool('b')] }]);
    expect(manager.getAllToolNames()).toEqual(['a', 'b']);
    expect(manager.getToolkits().map((k) => k.name)).toEqual(['kit']);
  });

  it('skips an item without a name with a warning', async () => {
    const manager = new ToolManager();
    manager.addItems([{ description: 'nameless' } as unknown as ToolItem, makeTool('a')]);
    expect(manager.getAllToolNames()).toEqual(['a']);
    expect(messagesAt(logs, 'warn')).toEqual(['Skipping invalid item in addItems:']);
  });

  it('replaces a same-name standalone tool with a correctly worded warning', async () => {
    const first = makeTool('a', 'first');
    const second = makeTool('a', 'second');
    const manager = new ToolManager([first]);
    expect(manager.addStandaloneTool(second)).toBe(true);
    expect(manager.getToolByName('a')).toBe(second);
    expect(manager.getAllToolNames()).toEqual(['a']);
    expect(messagesAt(logs, 'warn')).toEqual([
      "[ToolManager] Standalone tool 'a' replaces an existing standalone tool with the same name.",
    ]);
  });

  it('keeps one copy, without a warning, when the same tool is added twice', async () => {
    const a = makeTool('a');
    const manager = new ToolManager([a, a]);
    expect(manager.getAllTools()).toEqual([a]);
    expect(messagesAt(logs, 'warn')).toEqual([]);
  });

  it('rejects unsupported objects with an error log and returns false', async () => {
    const manager = new ToolManager();
    expect(manager.addStandaloneTool({ name: 'weird', run: () => 1 })).toBe(false);
    expect(manager.getAllToolNames()).toEqual([]);
    expect(messagesAt(logs, 'error')).toEqual(['Skipping unsupported tool type in addStandaloneTool']);
  });

  it('removes standalone tools only, returning a boolean', async () => {
    const manager = new ToolManager([makeTool('a'), { name: 'kit', tools: [makeTool('b')] }]);
    expect(manager.removeTool('a')).toBe(true);
    expect(manager.removeTool('a')).toBe(false);
    expect(manager.removeTool('b')).toBe(false);
    expect(manager.getAllToolNames()).toEqual(['b']);
  });

  it('answers hasToolInAny for standalone and toolkit tools', async () => {
    const manager = new ToolManager([makeTool('a'), { name: 'kit', tools: [makeTool('b')] }]);
    expect(manager.hasToolInAny('a')).toBe(true);
    expect(manager.hasToolInAny('b')).toBe(true);
    expect(manager.hasToolInAny('c')).toBe(false);
    expect(manager.hasToolInAny('__proto__')).toBe(false);
  });

  it('looks names up as own entries only', async () => {
    const manager = new ToolManager([makeTool('a')]);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(manager.getToolByName(name)).toBeUndefined();
    }
  });
});

describe('ToolManager: toolkits', () => {
  it('refuses a whole toolkit whose tool collides with a standalone tool', async () => {
    const manager = new ToolManager([makeTool('a')]);
    expect(manager.addToolkit({ name: 'kit', tools: [makeTool('a'), makeTool('b')] })).toBe(false);
    expect(manager.getAllToolNames()).toEqual(['a']);
    expect(manager.getToolkits()).toEqual([]);
    expect(messagesAt(logs, 'warn')).toEqual([
      "Toolkit 'kit' contains tools that conflict with existing tools. Skipping addition.",
    ]);
  });

  it("refuses a toolkit whose tool collides with another toolkit's tool", () => {
    const manager = new ToolManager([{ name: 'one', tools: [makeTool('x')] }]);
    expect(manager.addToolkit({ name: 'two', tools: [makeTool('x')] })).toBe(false);
    expect(manager.getToolkits().map((k) => k.name)).toEqual(['one']);
  });

  it('replaces a same-name toolkit in place, even when it reuses its own tool names', async () => {
    const oldB = makeTool('b', 'old');
    const newB = makeTool('b', 'new');
    const manager = new ToolManager([
      { name: 'kit1', tools: [oldB] },
      { name: 'kit2', tools: [makeTool('c')] },
    ]);
    expect(manager.addToolkit({ name: 'kit1', tools: [newB, makeTool('d')] })).toBe(true);
    expect(messagesAt(logs, 'warn')).toEqual(["Toolkit with name 'kit1' already exists. Replacing it."]);
    expect(manager.getToolkits().map((k) => k.name)).toEqual(['kit1', 'kit2']);
    expect(manager.getToolByName('b')).toBe(newB);
    expect(manager.getAllToolNames()).toEqual(['b', 'd', 'c']);
  });

  it('still refuses a replacement that collides with a different registration', async () => {
    const manager = new ToolManager([makeTool('s'), { name: 'kit', tools: [makeTool('b')] }]);
    expect(manager.addToolkit({ name: 'kit', tools: [makeTool('s')] })).toBe(false);
    expect(manager.getAllToolNames()).toEqual(['s', 'b']);
  });

  it('removes a toolkit by name, returning a boolean', async () => {
    const manager = new ToolManager([{ name: 'kit', tools: [makeTool('b')] }]);
    expect(manager.removeToolkit('kit')).toBe(true);
    expect(manager.removeToolkit('kit')).toBe(false);
    expect(manager.getAllToolNames()).toEqual([]);
  });

  it('fills toolkit defaults and returns copies from getToolkits', async () => {
    const manager = new ToolManager([{ name: 'kit', tools: [makeTool('b')] }]);
    const [kit] = manager.getToolkits();
    expect(kit).toMatchObject({ name: 'kit', description: '', addInstructions: false });
    kit!.tools.length = 0;
    expect(manager.getToolkits()[0]!.tools).toHaveLength(1);
  });

  it('skips a nested toolkit with a warning naming the outer toolkit', async () => {
    const inner = createToolkit({ name: 'inner', tools: [makeTool('deep')] });
    const manager = new ToolManager();
    expect(manager.addToolkit({ name: 'outer', tools: [makeTool('top'), inner as unknown as AnyTool] })).toBe(true);
    expect(manager.getAllToolNames()).toEqual(['top']);
    const warning = messagesAt(logs, 'warn').find((m) => m.includes('nested toolkits are not supported'));
    expect(warning).toBe(
      "Toolkit 'outer' contains toolkit 'inner': nested toolkits are not supported. Skipping 'inner'.",
    );
  });
});

describe('ToolManager: one meaning per name', () => {
  // VoltAgent resolves a standalone/toolkit clash one way for lookup and the other for the model.
  function shadowed() {
    const kitTool = makeTool('x', 'from the toolkit', () => 'kit');
    const standalone = makeTool('x', 'standalone', () => 'standalone');
    const manager = new ToolManager([{ name: 'kit', tools: [kitTool, makeTool('y')] }]);
    manager.addStandaloneTool(standalone);
    return { manager, kitTool, standalone };
  }

  it('warns that a standalone tool shadows a toolkit tool', async () => {
    shadowed();
    expect(messagesAt(logs, 'warn')).toEqual([
      "[ToolManager] Standalone tool 'x' shadows the tool of the same name in toolkit 'kit'; the standalone tool is used.",
    ]);
  });

  it('agrees between lookup, names, API view, execution set and descriptors', async () => {
    const { manager, standalone } = shadowed();
    expect(manager.getToolByName('x')).toBe(standalone);
    expect(manager.getAllToolNames()).toEqual(['x', 'y']);
    expect(manager.getAllTools()).toHaveLength(2);
    expect(manager.getToolsForApi().find((t) => t.name === 'x')?.description).toBe('standalone');
    expect(
      manager
        .getToolDescriptors()
        .filter((d) => d.name === 'x')
        .map((d) => d.description),
    ).toEqual(['standalone']);
    const prepared = manager.prepareToolsForExecution((t) => () => t.description);
    expect(Object.keys(prepared)).toEqual(['x', 'y']);
    expect(prepared.x!.description).toBe('standalone');
    expect(manager.getToolSpec('x')).toMatchObject({ name: 'x', description: 'standalone' });
  });

  it('shows the toolkit tool again once the standalone tool is removed', async () => {
    const { manager, kitTool } = shadowed();
    manager.removeTool('x');
    expect(manager.getToolByName('x')).toBe(kitTool);
  });

  it('deduplicates getAllToolNames', async () => {
    const { manager } = shadowed();
    const names = manager.getAllToolNames();
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('ToolManager: provider tools', () => {
  it('passes a named provider tool through unchanged', async () => {
    const webSearch = { ...openai.tools.webSearch({}), name: 'web_search' };
    const manager = new ToolManager([webSearch, makeTool('a')]);
    expect(manager.getToolByName('web_search')).toBe(webSearch);
    expect(manager.getAllProviderTools()).toEqual([webSearch]);
    expect(manager.getAllBaseTools().map((t) => t.name)).toEqual(['a']);
    expect(manager.getAllTools().map((t) => t.name)).toEqual(['a', 'web_search']);
    const prepared = manager.prepareToolsForExecution(() => () => undefined);
    expect(prepared.web_search).toBe(webSearch);
    expect(manager.getToolSpec('web_search')).toEqual({
      kind: 'provider',
      name: 'web_search',
      providerTool: webSearch,
    });
  });

  it('names an unnamed provider tool after its id', async () => {
    const raw = openai.tools.webSearch({});
    const manager = new ToolManager([raw as unknown as ToolItem]);
    const registered = manager.getToolByName('web_search');
    expect(isProviderTool(registered)).toBe(true);
    expect(registered).toMatchObject({ type: 'provider', id: 'openai.web_search', name: 'web_search' });
  });

  it('replaces a standalone tool of the other kind with the same name', async () => {
    const webSearch = { ...openai.tools.webSearch({}), name: 'search' };
    const manager = new ToolManager([makeTool('search')]);
    manager.addStandaloneTool(webSearch);
    expect(manager.getAllTools()).toEqual([webSearch]);
  });

  it('lists provider tools in the API view without parameters', async () => {
    const manager = new ToolManager([{ ...openai.tools.webSearch({}), name: 'web_search' }]);
    expect(manager.getToolsForApi()).toEqual([{ name: 'web_search', description: '' }]);
  });
});

describe('ToolManager: AI SDK tools', () => {
  it('wraps a named AI SDK tool with a Zod schema into a Tool', async () => {
    const seen: unknown[] = [];
    const source = aiTool({
      description: 'Adds numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ a, b }, options) => {
        seen.push(options);
        return a + b;
      },
    });
    const manager = new ToolManager([{ ...source, name: 'add' }]);
    const wrapped = manager.getToolByName('add') as AnyTool;
    expect(wrapped).toBeInstanceOf(Tool);
    expect(wrapped.type).toBe('user-defined');
    expect(wrapped.description).toBe('Adds numbers');
    expect(wrapped.parameters).toBe(source.inputSchema);

    const context = new Map<string, unknown>([['tenant', 't1']]);
    const options = createToolExecuteOptions({ toolName: 'add', toolCallId: 'call-9', context });
    expect(await wrapped.execute!({ a: 1, b: 2 }, options)).toBe(3);
    expect(seen[0]).toEqual({
      toolCallId: 'call-9',
      messages: [],
      abortSignal: options.abortSignal,
      context: { tenant: 't1' },
    });
  });

  it('converts a jsonSchema() input schema to Zod so arguments are validated', async () => {
    const source = aiTool({
      description: 'Greets',
      inputSchema: jsonSchema<{ name: string }>({
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      }),
      execute: async ({ name }) => `hi ${name}`,
    });
    const manager = new ToolManager([{ ...source, name: 'greet' }]);
    expect(await checkToolCall(manager, 'greet', { name: 'Ada' })).toMatchObject({
      kind: 'valid',
      args: { name: 'Ada' },
    });
    expect(await checkToolCall(manager, 'greet', { name: 3 })).toMatchObject({ kind: 'invalid-args' });
    expect(manager.getToolsForApi()[0]!.parameters).toMatchObject({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
  });

  it('adapts an AI SDK needsApproval function', async () => {
    const calls: unknown[] = [];
    const source = aiTool({
      description: 'd',
      inputSchema: z.object({}),
      needsApproval: async (_input, options) => {
        calls.push(options);
        return true;
      },
    });
    const manager = new ToolManager([{ ...source, name: 'gate' }]);
    const wrapped = manager.getToolByName('gate') as AnyTool;
    const policy = wrapped.needsApproval as (a: unknown, c: unknown) => Promise<boolean>;
    await expect(policy({}, { toolCallId: 'c1', messages: [], context: new Map([['k', 1]]) })).resolves.toBe(true);
    expect(calls[0]).toEqual({ toolCallId: 'c1', messages: [], context: { k: 1 } });
  });

  it('skips an AI SDK tool without a name, with a warning', async () => {
    const source = aiTool({ description: 'd', inputSchema: z.object({}) });
    const manager = new ToolManager();
    expect(manager.addStandaloneTool(source)).toBe(false);
    expect(messagesAt(logs, 'warn')).toEqual([
      "Skipping AI SDK tool without a name in addStandaloneTool; give it a 'name' property",
    ]);
  });

  it('wraps AI SDK tools inside toolkits too', async () => {
    const source = aiTool({ description: 'd', inputSchema: z.object({}), execute: async () => 1 });
    const manager = new ToolManager([{ name: 'kit', tools: [{ ...source, name: 'inner' }] }]);
    expect(manager.getToolByName('inner')).toBeInstanceOf(Tool);
  });
});

describe('ToolManager: views for the model', () => {
  it('returns { name, description, parameters } with JSON Schema parameters', async () => {
    const weather = createTool({
      name: 'weather',
      description: 'Weather for a city',
      parameters: z.object({ city: z.string().describe('City name'), units: z.enum(['c', 'f']).default('c') }),
    });
    const manager = new ToolManager([weather]);
    const [entry] = manager.getToolsForApi();
    expect(entry).toMatchObject({
      name: 'weather',
      description: 'Weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', description: 'City name' }, units: { enum: ['c', 'f'], default: 'c' } },
        required: ['city'],
      },
    });
  });

  it('prepares an AI SDK tool set: execute from the factory, none for client-side tools', async () => {
    const serverSide = makeTool('server', 'd', () => 1);
    const clientSide = makeTool('client');
    const approval = createTool({
      name: 'gated',
      description: 'd',
      parameters: z.object({}),
      needsApproval: true,
      execute: () => 1,
    });
    const manager = new ToolManager([serverSide, clientSide, approval]);
    const built: string[] = [];
    const prepared = manager.prepareToolsForExecution((t) => {
      built.push(t.name);
      return () => t.name;
    });
    expect(built).toEqual(['server', 'gated']);
    expect(prepared.client!.execute).toBeUndefined();
    expect(prepared.server!.inputSchema).toBe(serverSide.parameters);
    expect(prepared.gated!.needsApproval).toBe(true);
  });
});
