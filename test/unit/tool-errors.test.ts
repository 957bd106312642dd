import { describe, expect, it } from 'vitest';
import { AgentNotFoundError } from '../../src/agent/agent-not-found-error.js';
import { ClientHTTPError } from '../../src/tool/errors/client-http-error.js';
import { ToolDeniedError } from '../../src/tool/errors/tool-denied-error.js';

describe('ToolDeniedError', () => {
  it('keeps toolName, message, code and httpStatus; its name is the class name', () => {
    const error = new ToolDeniedError({
      toolName: 'delete_repo',
      message: 'Only admins may delete repositories',
      code: 'TOOL_FORBIDDEN',
      httpStatus: 403,
    });
    expect(error.name).toBe('ToolDeniedError');
    expect(error.toolName).toBe('delete_repo');
    expect(error.message).toBe('Only admins may delete repositories');
    expect(error.code).toBe('TOOL_FORBIDDEN');
    expect(error.httpStatus).toBe(403);
    expect(error).toBeInstanceOf(ClientHTTPError);
    expect(error).toBeInstanceOf(Error);
  });

  it('accepts custom codes and defaults to TOOL_FORBIDDEN / 403', () => {
    expect(new ToolDeniedError({ toolName: 't', message: 'm', code: 'MY_CODE', httpStatus: 429 })).toMatchObject({
      code: 'MY_CODE',
      httpStatus: 429,
    });
    expect(new ToolDeniedError({ toolName: 't', message: 'm' })).toMatchObject({
      code: 'TOOL_FORBIDDEN',
      httpStatus: 403,
    });
  });

  it('round-trips through plain data', () => {
    const data = { toolName: 't', message: 'quota used up', code: 'TOOL_QUOTA_EXCEEDED', httpStatus: 429 };
    const error = new ToolDeniedError(data);
    expect(error.toJSON()).toEqual(data);
    expect(JSON.parse(JSON.stringify(error))).toEqual(data);
    expect(ToolDeniedError.fromJSON(data)).toMatchObject({ ...data, name: 'ToolDeniedError' });
  });
});

describe('ToolDeniedError.isInstance', () => {
  it('recognises the error, also from another copy of the package (by its registry symbol)', () => {
    expect(ToolDeniedError.isInstance(new ToolDeniedError({ toolName: 't', message: 'm' }))).toBe(true);
    const fromAnotherCopy = Object.assign(new Error('m'), {
      [Symbol.for('durable-agent.error.ToolDeniedError')]: true,
    });
    expect(ToolDeniedError.isInstance(fromAnotherCopy)).toBe(true);
  });

  it('rejects other values', () => {
    expect(ToolDeniedError.isInstance(new Error('m'))).toBe(false);
    expect(ToolDeniedError.isInstance(new ClientHTTPError('X', 400, 'C', 'm'))).toBe(false);
    expect(ToolDeniedError.isInstance({ name: 'ToolDeniedError' })).toBe(false);
    expect(ToolDeniedError.isInstance(null)).toBe(false);
    expect(ToolDeniedError.isInstance('ToolDeniedError')).toBe(false);
  });
});

describe('ClientHTTPError', () => {
  it('takes (name, httpStatus, code, message)', () => {
    const error = new ClientHTTPError('PaymentRequired', 402, 'PLAN', 'Upgrade your plan');
    expect(error).toMatchObject({
      name: 'PaymentRequired',
      httpStatus: 402,
      code: 'PLAN',
      message: 'Upgrade your plan',
    });
    expect(ClientHTTPError.isInstance(error)).toBe(true);
    expect(ClientHTTPError.isInstance(new ToolDeniedError({ toolName: 't', message: 'm' }))).toBe(true);
    expect(ClientHTTPError.isInstance(new Error('x'))).toBe(false);
  });
});

describe('AgentNotFoundError', () => {
  it('names the agent and the known agents', () => {
    const error = new AgentNotFoundError('writer', ['assistant', 'planner']);
    expect(error.message).toBe("Unknown agent 'writer'. Known agents: assistant, planner.");
    expect(error.name).toBe('AgentNotFoundError');
    expect(AgentNotFoundError.isInstance(error)).toBe(true);
    expect(new AgentNotFoundError('x', []).message).toBe("Unknown agent 'x'. No agents are registered.");
  });

  it("on a worker, names its task queue and the fix when another project's worker shares it", () => {
    const error = new AgentNotFoundError('writer', ['assistant'], { taskQueue: 'shop' });
    expect(error.taskQueue).toBe('shop');
    expect(error.code).toBe('Agent.NotFound');
    expect(error.message).toBe(
      "Unknown agent 'writer'. Known agents: assistant. The worker that got the run polls task queue 'shop' and " +
        "hosts only these. If 'writer' is hosted by another worker (another project on the same Temporal), that " +
        'worker polls the same queue: give each project its own with TEMPORAL_TASK_QUEUE (or the taskQueue option ' +
        "of createAgentWorker and AgentClient), and start 'writer' on the task queue of the worker that hosts it.",
    );
  });
});
