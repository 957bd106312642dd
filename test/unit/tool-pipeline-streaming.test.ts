import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline, type RunToolPipelineInput } from '../../src/tool/pipeline.js';
import { createTool, type AnyTool, type ToolExecuteOptions } from '../../src/tool/tool.js';
import { captureLogs } from './support/log-capture.js';

captureLogs();

const progress = z.object({ step: z.number(), done: z.boolean().default(false) });

function streaming(
  execute: (args: unknown, options: ToolExecuteOptions) => unknown,
  hooks: { ends?: unknown[] } = {},
): AnyTool {
  return createTool({
    name: 'stream',
    description: 'A streaming tool',
    parameters: z.object({}),
    outputSchema: progress,
    execute: execute as never,
    hooks: { onEnd: ({ output }) => void hooks.ends?.push(output) },
  });
}

async function drive(tool: AnyTool, extra: Partial<RunToolPipelineInput> = {}) {
  const preliminaries: [unknown, number][] = [];
  const outcome = await runToolPipeline({
    tool,
    args: {},
    toolCallId: 'call-s',
    options: createToolExecuteOptions({ toolName: tool.name, toolCallId: 'call-s' }),
    onPreliminary: (value, seq) => void preliminaries.push([value, seq]),
    ...extra,
  });
  return { outcome, preliminaries };
}

describe('runToolPipeline: streaming tools', () => {
  it('reports every validated yield with seq from 1; the last value is the result and goes through end hooks once', async () => {
    const ends: unknown[] = [];
    const tool = streaming(
      async function* () {
        yield { step: 1 };
        yield { step: 2 };
        yield { step: 3, done: true, extra: 'stripped' };
      },
      { ends },
    );
    const { outcome, preliminaries } = await drive(tool);
    expect(preliminaries).toEqual([
      [{ step: 1, done: false }, 1],
      [{ step: 2, done: false }, 2],
      [{ step: 3, done: true }, 3],
    ]);
    expect(outcome).toEqual({
      kind: 'ok',
      output: { step: 3, done: true },
      modelOutput: { type: 'json', value: { step: 3, done: true } },
    });
    expect(ends).toEqual([{ step: 3, done: true }]);
  });

  it('takes the error path on a yield that fails validation, and closes the generator', async () => {
    let closed = false;
    const tool = streaming(async function* () {
      try {
        yield { step: 1 };
        yield { step: 'two' };
        yield { step: 3 };
      } finally {
        closed = true;
      }
    });
    const { outcome, preliminaries } = await drive(tool);
    expect(preliminaries).toEqual([[{ step: 1, done: false }, 1]]);
    expect(outcome).toMatchObject({
      kind: 'error',
      output: { message: expect.stringMatching(/^Output validation failed: /) },
    });
    expect(closed).toBe(true);
  });

  it('drains an async iterable returned by a plain function the same way', async () => {
    async function* values() {
      yield { step: 1 };
      yield { step: 2 };
    }
    const { outcome, preliminaries } = await drive(streaming(() => values()));
    expect(preliminaries.map(([, seq]) => seq)).toEqual([1, 2]);
    expect(outcome).toMatchObject({ kind: 'ok', output: { step: 2, done: false } });
  });

  it('drains an async iterable returned through a promise', async () => {
    async function* values() {
      yield { step: 5 };
    }
    const { outcome } = await drive(streaming(async () => values()));
    expect(outcome).toMatchObject({ kind: 'ok', output: { step: 5 } });
  });

  it('awaits onPreliminary before asking the generator for the next value', async () => {
    const order: string[] = [];
    const tool = streaming(async function* () {
      order.push('produce 1');
      yield { step: 1 };
      order.push('produce 2');
      yield { step: 2 };
    });
    await drive(tool, {
      onPreliminary: async (_value, seq) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        order.push(`reported ${seq}`);
      },
    });
    expect(order).toEqual(['produce 1', 'reported 1', 'produce 2', 'reported 2']);
  });

  it('resumes from a checkpoint: options.checkpoint is set and seq continues', async () => {
    let seenCheckpoint: unknown;
    const tool = streaming(async function* (_args, options) {
      seenCheckpoint = options.checkpoint;
      const from = (options.checkpoint?.value as { step: number } | undefined)?.step ?? 0;
      for (let step = from + 1; step <= 4; step++) yield { step, done: step === 4 };
    });
    const resumeFrom = { seq: 2, value: { step: 2, done: false } };
    const { outcome, preliminaries } = await drive(tool, { resumeFrom });
    expect(seenCheckpoint).toEqual(resumeFrom);
    expect(preliminaries).toEqual([
      [{ step: 3, done: false }, 3],
      [{ step: 4, done: true }, 4],
    ]);
    expect(outcome).toMatchObject({ kind: 'ok', output: { step: 4, done: true } });
  });

  it('finishes with the checkpoint value when a resumed tool has nothing more to yield', async () => {
    const tool = streaming(async function* () {
      // Everything was done before the previous attempt died.
    });
    const { outcome, preliminaries } = await drive(tool, { resumeFrom: { seq: 3, value: { step: 3, done: true } } });
    expect(preliminaries).toEqual([]);
    expect(outcome).toMatchObject({ kind: 'ok', output: { step: 3, done: true } });
  });

  it('stops a stream when the run is cancelled and rethrows', async () => {
    const controller = new AbortController();
    let closed = false;
    const tool = streaming(async function* () {
      try {
        yield { step: 1 };
        controller.abort();
        yield { step: 2 };
        yield { step: 3 };
      } finally {
        closed = true;
      }
    });
    const options = createToolExecuteOptions({ toolName: 'stream', toolCallId: 'c', abortController: controller });
    await expect(drive(tool, { options })).rejects.toMatchObject({ name: 'AbortError' });
    expect(closed).toBe(true);
  });
});
