import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentToolHooks } from '../../src/tool/agent-hooks.js';
import { ToolDeniedError } from '../../src/tool/errors/tool-denied-error.js';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline, type RunToolPipelineInput } from '../../src/tool/pipeline.js';
import { createTool, type AnyTool, type ToolHooks, type ToolOptions } from '../../src/tool/tool.js';
import { captureLogs } from './support/log-capture.js';

captureLogs();

const agent = { name: 'tester' };
const outputSchema = z.object({ n: z.number(), label: z.string().default('none') });

/** A tool and agent hooks that record every call into `calls`. */
function recorded(
  execute: ToolOptions<z.ZodObject, typeof outputSchema | undefined>['execute'],
  overrides: { tool?: ToolHooks; agent?: AgentToolHooks; outputSchema?: typeof outputSchema | undefined } = {},
) {
  const calls: string[] = [];
  const tool = createTool({
    name: 'probe',
    description: 'A tool under test',
    parameters: z.object({ x: z.number().optional() }),
    outputSchema: 'outputSchema' in overrides ? overrides.outputSchema : outputSchema,
    execute: (args, options) => {
      calls.push('execute');
      return execute!(args, options);
    },
    hooks: {
      onStart: async (a) => {
        calls.push('tool.onStart');
        return overrides.tool?.onStart?.(a);
      },
      onEnd: async (a) => {
        calls.push('tool.onEnd');
        return overrides.tool?.onEnd?.(a);
      },
    },
  }) as AnyTool;
  const agentHooks: AgentToolHooks = {
    onToolStart: async (a) => {
      calls.push('agent.onToolStart');
      return overrides.agent?.onToolStart?.(a);
    },
    onToolEnd: async (a) => {
      calls.push('agent.onToolEnd');
      return overrides.agent?.onToolEnd?.(a);
    },
    onToolError: async (a) => {
      calls.push('agent.onToolError');
      return overrides.agent?.onToolError?.(a);
    },
  };
  return { tool, agentHooks, calls };
}

function run(tool: AnyTool, agentHooks?: AgentToolHooks, extra: Partial<RunToolPipelineInput> = {}) {
  return runToolPipeline({
    tool,
    args: { x: 1 },
    toolCallId: 'call-1',
    options: createToolExecuteOptions({ toolName: tool.name, toolCallId: 'call-1' }),
    agent,
    agentHooks,
    ...extra,
  });
}

describe('runToolPipeline: success', () => {
  it('runs hooks in order: tool onStart, agent onToolStart, execute, tool onEnd, agent onToolEnd', async () => {
    const { tool, agentHooks, calls } = recorded(() => ({ n: 1 }));
    const outcome = await run(tool, agentHooks);
    expect(outcome.kind).toBe('ok');
    expect(calls).toEqual(['tool.onStart', 'agent.onToolStart', 'execute', 'tool.onEnd', 'agent.onToolEnd']);
  });

  it('passes the parsed output on: defaults applied, unknown keys stripped', async () => {
    const seen: unknown[] = [];
    const { tool, agentHooks } = recorded(() => ({ n: 7, junk: 1 }), {
      tool: { onEnd: ({ output }) => void seen.push(output) },
      agent: { onToolEnd: ({ output }) => void seen.push(output) },
    });
    const outcome = await run(tool, agentHooks);
    expect(outcome).toEqual({
      kind: 'ok',
      output: { n: 7, label: 'none' },
      modelOutput: { type: 'json', value: { n: 7, label: 'none' } },
    });
    expect(seen).toEqual([
      { n: 7, label: 'none' },
      { n: 7, label: 'none' },
    ]);
  });

  it('gives hooks the documented arguments', async () => {
    const args: Record<string, unknown> = {};
    const { tool, agentHooks } = recorded(() => ({ n: 1 }), {
      tool: {
        onStart: (a) => void (args.toolStart = a),
        onEnd: (a) => void (args.toolEnd = a),
      },
      agent: {
        onToolStart: (a) => void (args.agentStart = a),
        onToolEnd: (a) => void (args.agentEnd = a),
      },
    });
    const options = createToolExecuteOptions({ toolName: 'probe', toolCallId: 'call-1' });
    await run(tool, agentHooks, { options });
    expect(args.toolStart).toEqual({ tool, args: { x: 1 }, options });
    expect(args.agentStart).toEqual({ agent, tool, context: options, args: { x: 1 }, options });
    expect(args.toolEnd).toEqual({ tool, args: { x: 1 }, output: { n: 1, label: 'none' }, error: undefined, options });
    expect(args.agentEnd).toEqual({
      agent,
      tool,
      output: { n: 1, label: 'none' },
      error: undefined,
      context: options,
      options,
    });
  });

  it('hands execute the options, including the abort signal', async () => {
    let seenSignal: AbortSignal | undefined;
    const { tool } = recorded((_args, options) => {
      seenSignal = options.abortSignal;
      return { n: 1 };
    });
    const options = createToolExecuteOptions({ toolName: 'probe', toolCallId: 'call-1' });
    await run(tool, undefined, { options });
    expect(seenSignal).toBe(options.abortSignal);
  });
});

describe('runToolPipeline: overrides', () => {
  it("lets the tool onEnd override, and the agent sees the tool's override", async () => {
    let agentSaw: unknown;
    const { tool, agentHooks } = recorded(() => ({ n: 1 }), {
      tool: { onEnd: () => ({ output: { n: 2 } }) },
      agent: { onToolEnd: ({ output }) => void (agentSaw = output) },
    });
    const outcome = await run(tool, agentHooks);
    expect(agentSaw).toEqual({ n: 2 });
    expect(outcome).toMatchObject({ kind: 'ok', output: { n: 2, label: 'none' } });
  });

  it('prefers the agent override over the tool override and validates it again', async () => {
    const { tool, agentHooks } = recorded(() => ({ n: 1 }), {
      tool: { onEnd: () => ({ output: { n: 2 } }) },
      agent: { onToolEnd: () => ({ output: { n: 3, extra: true } }) },
    });
    expect(await run(tool, agentHooks)).toMatchObject({ kind: 'ok', output: { n: 3, label: 'none' } });
  });

  it('counts an own `output: undefined` as an override (the model sees null)', async () => {
    const { tool, agentHooks } = recorded(() => ({ n: 1 }), {
      outputSchema: undefined,
      agent: { onToolEnd: () => ({ output: undefined }) },
    });
    expect(await run(tool, agentHooks)).toEqual({
      kind: 'ok',
      output: undefined,
      modelOutput: { type: 'json', value: null },
    });
  });

  it('ignores hook results that are not objects or have no own output', async () => {
    const { tool, agentHooks } = recorded(() => ({ n: 1 }), {
      tool: { onEnd: () => 'nope' as unknown as undefined },
      agent: { onToolEnd: () => Object.create({ output: { n: 9 } }) as { output?: unknown } },
    });
    expect(await run(tool, agentHooks)).toMatchObject({ kind: 'ok', output: { n: 1, label: 'none' } });
  });

  it('turns an override that fails validation into an error, without running end hooks again', async () => {
    const { tool, agentHooks, calls } = recorded(() => ({ n: 1 }), {
      agent: { onToolEnd: () => ({ output: { n: 'bad' } }) },
    });
    const outcome = await run(tool, agentHooks);
    expect(outcome.kind).toBe('error');
    expect((outcome as { output: { message: string } }).output.message).toMatch(/^Output validation failed: /);
    expect(calls).toEqual([
      'tool.onStart',
      'agent.onToolStart',
      'execute',
      'tool.onEnd',
      'agent.onToolEnd',
      'agent.onToolError',
    ]);
  });
});

describe('runToolPipeline: errors become results for the model', () => {
  // SPEC 2.2 once listed the stack and every own property of the error; since issue 8 the payload keeps an
  // allow-list (the error's code, status and validation fields, and a short cause chain), because it is recorded
  // in history and an HTTP client's error carries request headers. The stack goes to the worker log.
  it('builds the error payload from allow-listed fields and the cause', async () => {
    const { tool } = recorded(() => {
      const error = new Error('database is down', { cause: new TypeError('socket closed') });
      Object.assign(error, { code: 'DB_DOWN', retryable: false, skipped: undefined, fn: () => 1 });
      throw error;
    });
    const outcome = await run(tool);
    expect(outcome.kind).toBe('error');
    const payload = (outcome as { output: Record<string, unknown> }).output;
    expect(Object.keys(payload).sort()).toEqual(
      ['error', 'name', 'message', 'toolCallId', 'toolName', 'code', 'cause'].sort(),
    );
    expect(payload).toEqual({
      error: true,
      name: 'Error',
      message: 'database is down',
      toolCallId: 'call-1',
      toolName: 'probe',
      code: 'DB_DOWN',
      cause: { name: 'TypeError', message: 'socket closed' },
    });
    expect(outcome).toMatchObject({ modelOutput: { type: 'json', value: payload } });
  });

  it('reports output validation failures with validationErrors and actualOutput', async () => {
    const { tool } = recorded(() => ({ n: 'seven' }));
    const outcome = await run(tool);
    const payload = (outcome as { output: Record<string, unknown> }).output;
    expect(Object.keys(payload).sort()).toEqual(
      ['error', 'name', 'message', 'toolCallId', 'toolName', 'validationErrors', 'actualOutput'].sort(),
    );
    expect(payload.message).toMatch(/^Output validation failed: /);
    expect(payload.message).toContain('expected number');
    expect(payload.actualOutput).toEqual({ n: 'seven' });
    expect(payload.validationErrors).toEqual([expect.objectContaining({ code: 'invalid_type', path: ['n'] })]);
  });

  it('runs tool onEnd exactly once, then agent onToolError, then agent onToolEnd', async () => {
    const ends: unknown[] = [];
    const { tool, agentHooks, calls } = recorded(
      () => {
        throw new Error('boom');
      },
      {
        tool: { onEnd: ({ output, error }) => void ends.push({ output, error: (error as Error).message }) },
        agent: { onToolEnd: ({ output, error }) => void ends.push({ output, error: error?.message }) },
      },
    );
    await run(tool, agentHooks);
    expect(calls).toEqual([
      'tool.onStart',
      'agent.onToolStart',
      'execute',
      'tool.onEnd',
      'agent.onToolError',
      'agent.onToolEnd',
    ]);
    expect(ends).toEqual([
      { output: undefined, error: 'boom' },
      { output: undefined, error: 'boom' },
    ]);
  });

  it('gives onToolError the error, the original thrown value and the context', async () => {
    let seen: Record<string, unknown> | undefined;
    const { tool, agentHooks } = recorded(
      () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- tools may throw anything; that is the point
        throw 'plain string';
      },
      { agent: { onToolError: (a) => void (seen = a as unknown as Record<string, unknown>) } },
    );
    const outcome = await run(tool, agentHooks);
    expect(seen).toMatchObject({ agent, tool, args: { x: 1 }, originalError: 'plain string' });
    expect((seen!.error as Error).message).toBe('plain string');
    expect(seen!.context).toBe(seen!.options);
    expect(outcome).toMatchObject({ kind: 'error', output: { name: 'Error', message: 'plain string' } });
  });

  it('lets onToolError replace the payload', async () => {
    const { tool, agentHooks } = recorded(
      () => {
        throw new Error('boom');
      },
      { agent: { onToolError: () => ({ output: 'fallback answer' }) } },
    );
    const outcome = await run(tool, agentHooks);
    expect(outcome).toMatchObject({
      kind: 'ok',
      output: 'fallback answer',
      modelOutput: { type: 'text', value: 'fallback answer' },
      recoveredFrom: { error: true, message: 'boom' },
    });
  });

  it('does not execute when the tool onStart throws, and the run goes on', async () => {
    const { tool, agentHooks, calls } = recorded(() => ({ n: 1 }), {
      tool: {
        onStart: () => {
          throw new Error('not allowed today');
        },
      },
    });
    const outcome = await run(tool, agentHooks);
    expect(calls).not.toContain('execute');
    expect(outcome).toMatchObject({ kind: 'error', output: { message: 'not allowed today' } });
  });

  it('keeps going when a hook fails while handling an error', async () => {
    const { tool, agentHooks, calls } = recorded(
      () => {
        throw new Error('boom');
      },
      {
        tool: {
          onEnd: () => {
            throw new Error('hook broke');
          },
        },
      },
    );
    const outcome = await run(tool, agentHooks);
    expect(outcome).toMatchObject({ kind: 'error', output: { message: 'boom' } });
    expect(calls.slice(-2)).toEqual(['agent.onToolError', 'agent.onToolEnd']);
  });
});

describe('runToolPipeline: ToolDeniedError ends the run', () => {
  const denial = () =>
    new ToolDeniedError({
      toolName: 'probe',
      message: 'Upgrade to use this tool',
      code: 'TOOL_PLAN_REQUIRED',
      httpStatus: 402,
    });

  it('from the agent onToolStart: no execute, error hooks once, code and status kept', async () => {
    const error = denial();
    const { tool, agentHooks, calls } = recorded(() => ({ n: 1 }), {
      agent: {
        onToolStart: () => {
          throw error;
        },
      },
    });
    const outcome = await run(tool, agentHooks);
    expect(outcome).toEqual({ kind: 'denied', error });
    expect(error.code).toBe('TOOL_PLAN_REQUIRED');
    expect(error.httpStatus).toBe(402);
    expect(calls).toEqual(['tool.onStart', 'agent.onToolStart', 'tool.onEnd', 'agent.onToolError', 'agent.onToolEnd']);
  });

  it('from execute', async () => {
    const error = denial();
    const { tool, agentHooks } = recorded(() => {
      throw error;
    });
    expect(await run(tool, agentHooks)).toEqual({ kind: 'denied', error });
  });

  it('even when onToolError offers an output', async () => {
    const error = denial();
    const { tool, agentHooks } = recorded(
      () => {
        throw error;
      },
      { agent: { onToolError: () => ({ output: 'ignored' }) } },
    );
    expect(await run(tool, agentHooks)).toEqual({ kind: 'denied', error });
  });
});

describe('runToolPipeline: what the model sees', () => {
  it('encodes strings as text and other values as json', async () => {
    const text = createTool({ name: 't', description: 'd', parameters: z.object({}), execute: () => 'hello' });
    const json = createTool({ name: 'j', description: 'd', parameters: z.object({}), execute: () => [1, 2] });
    expect(await run(text)).toMatchObject({ kind: 'ok', modelOutput: { type: 'text', value: 'hello' } });
    expect(await run(json)).toMatchObject({ modelOutput: { type: 'json', value: [1, 2] } });
  });

  it('uses toModelOutput for the model only; hooks and the outcome see the real output', async () => {
    let hookSaw: unknown;
    const tool = createTool({
      name: 'img',
      description: 'd',
      parameters: z.object({}),
      execute: () => ({ value: 1 }),
      toModelOutput: ({ output }) => ({ type: 'text', value: `V=${output.value}` }),
      hooks: { onEnd: ({ output }) => void (hookSaw = output) },
    });
    const outcome = await run(tool);
    expect(hookSaw).toEqual({ value: 1 });
    expect(outcome).toEqual({ kind: 'ok', output: { value: 1 }, modelOutput: { type: 'text', value: 'V=1' } });
  });

  it('shows errors as json even when the tool has toModelOutput', async () => {
    const tool = createTool({
      name: 'img',
      description: 'd',
      parameters: z.object({}),
      execute: () => {
        throw new Error('nope');
      },
      toModelOutput: () => ({ type: 'text', value: 'never' }),
    });
    expect(await run(tool)).toMatchObject({ kind: 'error', modelOutput: { type: 'json', value: { message: 'nope' } } });
  });
});

describe('runToolPipeline: cancellation is not a tool error', () => {
  it('rethrows when the abort signal fired during execute, without error hooks', async () => {
    const controller = new AbortController();
    const { tool, agentHooks, calls } = recorded(
      (_args, options) =>
        new Promise((_resolve, reject) => {
          options.abortSignal.addEventListener('abort', () => reject(options.abortSignal.reason as Error));
          controller.abort();
        }),
    );
    const options = createToolExecuteOptions({ toolName: 'probe', toolCallId: 'c', abortController: controller });
    await expect(run(tool, agentHooks, { options })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).not.toContain('agent.onToolError');
  });

  it('does not start a call whose signal has already fired', async () => {
    const controller = new AbortController();
    controller.abort();
    const { tool, calls } = recorded(() => ({ n: 1 }));
    const options = createToolExecuteOptions({ toolName: 'probe', toolCallId: 'c', abortController: controller });
    await expect(run(tool, undefined, { options })).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toEqual([]);
  });
});

describe('runToolPipeline: client-side tools', () => {
  it('throws, because the caller submits their result', async () => {
    const clientSide = createTool({ name: 'ask_user', description: 'd', parameters: z.object({}) });
    await expect(run(clientSide)).rejects.toThrow(
      "Tool 'ask_user' is client-side (it has no execute function); the caller submits its result.",
    );
  });
});
