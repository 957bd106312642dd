// `activity: { local: true }`: which tools may run as local activities (refused when defined otherwise), what a
// checked call carries to the workflow, and the local activity options the workflow derives from it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callActivityOptions } from '../../activities/tool-activity.js';
import { Agent } from '../../src/agent/agent.js';
import { mcpToolsFromListing } from '../../src/mcp/tools-from-listing.js';
import { LocalToolError } from '../../src/tool/errors/local-tool-error.js';
import { isGeneratorFunction } from '../../src/tool/local-tool.js';
import { createTool, type AnyTool } from '../../src/tool/tool.js';
import { localToolActivityOptions } from '../../workflows/activity-options.js';

const parameters = z.object({ q: z.string() });
const plain = (activity?: AnyTool['activity']) =>
  createTool({ name: 'plain', description: 'd', parameters, ...(activity ? { activity } : {}), execute: () => 'ok' });

function refusal(fn: () => unknown): LocalToolError {
  try {
    fn();
  } catch (error) {
    expect(LocalToolError.isInstance(error)).toBe(true);
    return error as LocalToolError;
  }
  throw new Error('expected a LocalToolError');
}

describe('local tools: definition-time checks', () => {
  it('accepts a short tool with activity.local, with its timeouts and retry policy', () => {
    const tool = plain({ local: true, startToCloseTimeout: '5s', retry: { maximumAttempts: 2 } });
    expect(tool.activity).toEqual({ local: true, startToCloseTimeout: '5s', retry: { maximumAttempts: 2 } });
  });

  it('refuses a streaming tool (async or sync generator), saying why and what to do', () => {
    const error = refusal(() =>
      createTool({
        name: 'stream',
        description: 'd',
        parameters,
        activity: { local: true },
        execute: async function* () {
          yield 1;
        },
      }),
    );
    expect(error.message).toBe(
      "Tool 'stream' cannot run as a local activity: it streams (execute is a generator): each yield is " +
        'checkpointed as a heartbeat, and local activities have no heartbeats. Remove activity.local from it.',
    );
    expect(error.subject).toBe('stream');
    expect(() =>
      createTool({
        name: 'sync',
        description: 'd',
        parameters,
        activity: { local: true },
        execute: function* () {
          yield 1;
        },
      }),
    ).toThrow(/it streams/);
  });

  it('refuses tools that need approval (static or a function) and client-side tools', () => {
    expect(
      refusal(() =>
        createTool({
          name: 'a',
          description: 'd',
          parameters,
          needsApproval: true,
          activity: { local: true },
          execute: () => 1,
        }),
      ).message,
    ).toMatch(/^Tool 'a' cannot run as a local activity: it may need approval/);
    expect(
      refusal(() =>
        createTool({
          name: 'b',
          description: 'd',
          parameters,
          needsApproval: () => false,
          activity: { local: true },
          execute: () => 1,
        }),
      ).message,
    ).toMatch(/it may need approval/);
    expect(
      refusal(() => createTool({ name: 'c', description: 'd', parameters, activity: { local: true } })).message,
    ).toMatch(/it is a client-side tool/);
    // needsApproval: false is no approval at all.
    expect(() =>
      createTool({
        name: 'd',
        description: 'd',
        parameters,
        needsApproval: false,
        activity: { local: true },
        execute: () => 1,
      }),
    ).not.toThrow();
  });

  it('refuses local with a heartbeat timeout or a task queue, and a non-boolean local', () => {
    expect(refusal(() => plain({ local: true, heartbeatTimeout: '10s' })).message).toBe(
      "Tool 'plain': activity.local cannot be combined with heartbeatTimeout (a local activity has no heartbeats). " +
        'Remove one.',
    );
    expect(refusal(() => plain({ local: true, taskQueue: 'gpu' })).message).toMatch(
      /cannot be combined with taskQueue/,
    );
    expect(refusal(() => plain({ local: 'yes' as never })).message).toBe(
      "Tool 'plain': activity.local must be true or false.",
    );
    // local: false changes nothing.
    expect(() => plain({ local: false, heartbeatTimeout: '10s' })).not.toThrow();
  });

  it('an agent defaulting to local tools refuses a static tool that cannot run locally unless it opts out', () => {
    const approval = createTool({ name: 'send', description: 'd', parameters, needsApproval: true, execute: () => 1 });
    const error = refusal(
      () =>
        new Agent({ name: 'ag', instructions: 'i', tools: [plain(), approval], activity: { tools: { local: true } } }),
    );
    expect(error.message).toBe(
      "Agent 'ag' runs its tools as local activities (activity.tools.local), but tool 'send' cannot run locally: it " +
        'may need approval: a local activity runs only when the model calls it, not hours later. Give that tool ' +
        'activity: { local: false }.',
    );
    const optedOut = createTool({
      name: 'send',
      description: 'd',
      parameters,
      needsApproval: true,
      activity: { local: false },
      execute: () => 1,
    });
    expect(
      () =>
        new Agent({ name: 'ag', instructions: 'i', tools: [plain(), optedOut], activity: { tools: { local: true } } }),
    ).not.toThrow();
    expect(
      refusal(() => new Agent({ name: 'ag', instructions: 'i', activity: { tools: { local: true, taskQueue: 'q' } } }))
        .message,
    ).toMatch(/^Agent 'ag' \(activity.tools\): activity.local cannot be combined with taskQueue/);
  });

  it('tells generator functions from functions returning iterables', () => {
    expect(isGeneratorFunction(async function* () {})).toBe(true);
    expect(isGeneratorFunction(function* () {})).toBe(true);
    expect(isGeneratorFunction(async () => [])).toBe(false);
    expect(isGeneratorFunction(undefined)).toBe(false);
  });
});

describe('local tools: what a checked call carries, and its local activity options', () => {
  it("keeps the tool's own local choice, without heartbeat timeout or task queue from the agent defaults", () => {
    const agent = new Agent({
      name: 'ag',
      instructions: 'i',
      activity: { tools: { heartbeatTimeout: '1m', taskQueue: 'q', retry: { maximumAttempts: 4 } } },
    });
    const tool = plain({ local: true, startToCloseTimeout: '5s' });
    expect(callActivityOptions(agent, tool)).toEqual({
      local: true,
      startToCloseTimeout: '5s',
      retry: { maximumAttempts: 4 },
    });
    expect(callActivityOptions(agent, plain())).toEqual({
      heartbeatTimeout: '1m',
      taskQueue: 'q',
      retry: { maximumAttempts: 4 },
    });
  });

  it('an agent default makes local only the tools that can run locally (not MCP tools, not approval tools)', () => {
    const agent = new Agent({ name: 'ag', instructions: 'i', activity: { tools: { local: true } } });
    const [mcpTool] = mcpToolsFromListing(
      'srv',
      [{ name: 'echo', inputSchema: { type: 'object', properties: {} } }],
      async () => ({ v: 1, kind: 'ok', output: 'x' }),
    );
    const perRunApproval = createTool({
      name: 'p',
      description: 'd',
      parameters,
      needsApproval: true,
      execute: () => 1,
    });
    expect(callActivityOptions(agent, plain())).toEqual({ local: true });
    expect(callActivityOptions(agent, mcpTool!)).toEqual({});
    expect(callActivityOptions(agent, perRunApproval)).toEqual({});
    expect(callActivityOptions(agent, plain({ local: false }))).toEqual({});
  });

  it("derives local activity options: the tool's timeouts and retries, the usual defaults otherwise", () => {
    const call = { toolCallId: 'c', toolName: 't', status: 'valid' as const, needsApproval: false, clientSide: false };
    expect(
      localToolActivityOptions({
        ...call,
        activity: {
          local: true,
          startToCloseTimeout: '5s',
          scheduleToCloseTimeout: '1m',
          retry: { maximumAttempts: 2 },
        },
      }),
    ).toEqual({
      startToCloseTimeout: '5s',
      scheduleToCloseTimeout: '1m',
      retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 2 },
      cancellationType: 'WAIT_CANCELLATION_COMPLETED',
    });
    expect(localToolActivityOptions({ ...call, activity: { local: true } })).toMatchObject({
      startToCloseTimeout: '10 minutes',
      retry: { maximumAttempts: 10 },
    });
  });
});
