import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTool, isUserDefinedTool, Tool, tool, type ToolOptions } from '../../src/tool/tool.js';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { captureLogs, messagesAt } from './support/log-capture.js';

const logs = captureLogs();
const parameters = z.object({ city: z.string() });

describe('createTool', () => {
  it('throws "Tool name is required" without a name', () => {
    expect(() => createTool({ name: '', description: 'd', parameters })).toThrow('Tool name is required');
    expect(() => createTool({ description: 'd', parameters } as unknown as ToolOptions<typeof parameters>)).toThrow(
      'Tool name is required',
    );
  });

  it('warns about a missing description and stores ""', () => {
    const created = createTool({ name: 'weather', parameters });
    expect(created.description).toBe('');
    expect(messagesAt(logs, 'warn')).toEqual(["Tool 'weather' created without a description"]);
  });

  it('throws "Tool \'<name>\' parameters schema is required", after the description warning', () => {
    expect(() => createTool({ name: 'weather' } as unknown as ToolOptions<typeof parameters>)).toThrow(
      "Tool 'weather' parameters schema is required",
    );
    expect(messagesAt(logs, 'warn')).toEqual(["Tool 'weather' created without a description"]);
  });

  it('rejects parameters that are not a schema', () => {
    expect(() => createTool({ name: 't', description: 'd', parameters: {} as unknown as typeof parameters })).toThrow(
      "Tool 't' parameters must be a Zod schema or a Standard Schema",
    );
  });

  it('defaults id to the name and keeps an explicit id', () => {
    expect(createTool({ name: 'a', description: 'd', parameters }).id).toBe('a');
    expect(createTool({ id: 'tool-a', name: 'a', description: 'd', parameters }).id).toBe('tool-a');
  });

  it('has the stable discriminator type "user-defined" and is a Tool', () => {
    const created = createTool({ name: 'a', description: 'd', parameters });
    expect(created.type).toBe('user-defined');
    expect(created).toBeInstanceOf(Tool);
    expect(isUserDefinedTool(created)).toBe(true);
    expect(isUserDefinedTool({ type: 'user-defined', name: 'x' })).toBe(false);
  });

  it('is client-side exactly when it has no execute, also after a spread copy', () => {
    const clientSide = createTool({ name: 'ask', description: 'd', parameters });
    const serverSide = createTool({ name: 'run', description: 'd', parameters, execute: () => 'ok' });
    expect(clientSide.isClientSide()).toBe(true);
    expect(serverSide.isClientSide()).toBe(false);
    expect({ ...serverSide }.isClientSide()).toBe(false);
  });

  it('exports `tool` as an alias of createTool', () => {
    expect(tool).toBe(createTool);
  });

  it('keeps every option', () => {
    const outputSchema = z.object({ ok: z.boolean() });
    const needsApproval = (): boolean => true;
    const toModelOutput = () => ({ type: 'text' as const, value: 'x' });
    const hooks = { onStart: () => undefined, onEnd: () => undefined };
    const created = createTool({
      name: 'all',
      description: 'everything',
      parameters,
      outputSchema,
      tags: ['a', 'b'],
      needsApproval,
      providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      mcp: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false, title: 'All' },
      toModelOutput,
      hooks,
      activity: { startToCloseTimeout: '30s', heartbeatTimeout: 5_000, retry: { maximumAttempts: 3 }, taskQueue: 'q' },
    });
    expect(created.outputSchema).toBe(outputSchema);
    expect(created.tags).toEqual(['a', 'b']);
    expect(created.needsApproval).toBe(needsApproval);
    expect(created.providerOptions).toEqual({ anthropic: { cacheControl: { type: 'ephemeral' } } });
    expect(created.mcp).toMatchObject({ readOnlyHint: true, title: 'All' });
    expect(created.toModelOutput).toBe(toModelOutput);
    expect(created.hooks).toBe(hooks);
    expect(created.activity).toEqual({
      startToCloseTimeout: '30s',
      heartbeatTimeout: 5_000,
      retry: { maximumAttempts: 3 },
      taskQueue: 'q',
    });
    expect(created.tags).toBeDefined();
  });

  it('leaves tags undefined when omitted', () => {
    expect(createTool({ name: 'a', description: 'd', parameters }).tags).toBeUndefined();
  });

  it('calls execute directly without validation or hooks', async () => {
    const seen: unknown[] = [];
    const created = createTool({
      name: 'echo',
      description: 'd',
      parameters,
      hooks: { onStart: () => void seen.push('hook') },
      execute: (args) => args,
    });
    const options = createToolExecuteOptions({ toolName: 'echo', toolCallId: 'c1' });
    expect(await created.execute!({ city: 1 } as unknown as { city: string }, options)).toEqual({ city: 1 });
    expect(seen).toEqual([]);
  });
});

describe('execute return kinds', () => {
  const output = z.object({ pct: z.number() });

  it('accepts a value, a promise, and an async generator (typed by the output schema)', async () => {
    const options = createToolExecuteOptions({ toolName: 't', toolCallId: 'c' });
    const sync = createTool({
      name: 's',
      description: 'd',
      parameters,
      outputSchema: output,
      execute: () => ({ pct: 1 }),
    });
    const promised = createTool({
      name: 'p',
      description: 'd',
      parameters,
      outputSchema: output,
      execute: async () => ({ pct: 2 }),
    });
    const streamed = createTool({
      name: 'g',
      description: 'd',
      parameters,
      outputSchema: output,
      execute: async function* ({ city }) {
        expect(city).toBe('Oslo');
        yield { pct: 50 };
        yield { pct: 100 };
      },
    });
    expect(await sync.execute!({ city: 'Oslo' }, options)).toEqual({ pct: 1 });
    expect(await promised.execute!({ city: 'Oslo' }, options)).toEqual({ pct: 2 });
    const values: unknown[] = [];
    for await (const value of streamed.execute!({ city: 'Oslo' }, options) as AsyncIterable<unknown>)
      values.push(value);
    expect(values).toEqual([{ pct: 50 }, { pct: 100 }]);
  });
});

describe('createToolExecuteOptions', () => {
  it('fills defaults and derives a stable idempotency key', () => {
    const options = createToolExecuteOptions({ toolName: 't', toolCallId: 'call-1', operationId: 'run-1' });
    expect(options.operationId).toBe('run-1');
    expect(options.context).toBeInstanceOf(Map);
    expect(options.abortSignal).toBe(options.abortController!.signal);
    expect(options.toolContext).toEqual({
      name: 't',
      callId: 'call-1',
      messages: [],
      abortSignal: options.abortSignal,
    });
    expect(options.attempt).toBe(1);
    expect(options.idempotencyKey).toBe('run-1:call-1');
    expect(typeof options.logger.warn).toBe('function');
  });

  it('uses a given abort signal everywhere', () => {
    const controller = new AbortController();
    const options = createToolExecuteOptions({ toolName: 't', toolCallId: 'c', abortSignal: controller.signal });
    expect(options.abortSignal).toBe(controller.signal);
    expect(options.toolContext.abortSignal).toBe(controller.signal);
  });
});
