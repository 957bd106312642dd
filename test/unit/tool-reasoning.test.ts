import { describe, expect, it } from 'vitest';
import { createToolExecuteOptions } from '../../src/tool/execute-options.js';
import { runToolPipeline } from '../../src/tool/pipeline.js';
import {
  DEFAULT_REASONING_FEW_SHOT_EXAMPLES,
  DEFAULT_REASONING_INSTRUCTIONS,
} from '../../src/tool/reasoning/instructions.js';
import { createReasoningTools } from '../../src/tool/reasoning/index.js';
import { ToolManager } from '../../src/tool/tool-manager.js';
import type { AnyTool } from '../../src/tool/tool.js';
import { checkToolCall } from '../../src/tool/check-tool-call.js';

function toolsOf(kit = createReasoningTools()): Record<string, AnyTool> {
  return Object.fromEntries((kit.tools as AnyTool[]).map((t) => [t.name, t]));
}

describe('createReasoningTools', () => {
  it('returns the reasoning_tools toolkit with think and analyze', async () => {
    const kit = createReasoningTools();
    expect(kit.name).toBe('reasoning_tools');
    expect(kit.addInstructions).toBe(true);
    const { think, analyze } = toolsOf(kit);
    expect(think).toMatchObject({ id: 'reasoning-think', name: 'think', type: 'user-defined' });
    expect(analyze).toMatchObject({ id: 'reasoning-analyze', name: 'analyze', type: 'user-defined' });
  });

  it('wraps the instructions, with examples by default', async () => {
    const kit = createReasoningTools();
    expect(kit.instructions).toBe(
      `<reasoning_instructions>\n${DEFAULT_REASONING_INSTRUCTIONS}\n${DEFAULT_REASONING_FEW_SHOT_EXAMPLES}\n</reasoning_instructions>`,
    );
  });

  it('leaves the examples out with addFewShot: false', async () => {
    expect(createReasoningTools({ addFewShot: false }).instructions).toBe(
      `<reasoning_instructions>\n${DEFAULT_REASONING_INSTRUCTIONS}\n</reasoning_instructions>`,
    );
  });

  it('uses custom examples', async () => {
    expect(createReasoningTools({ fewShotExamples: 'MY EXAMPLES' }).instructions).toBe(
      `<reasoning_instructions>\n${DEFAULT_REASONING_INSTRUCTIONS}\nMY EXAMPLES\n</reasoning_instructions>`,
    );
  });

  it('has no instructions with addInstructions: false (addFewShot then ignored)', async () => {
    const kit = createReasoningTools({ addInstructions: false, addFewShot: true });
    expect(kit.instructions).toBeUndefined();
    expect(kit.addInstructions).toBe(false);
  });

  it('can leave either tool out', async () => {
    expect(createReasoningTools({ think: false }).tools.map((t) => t.name)).toEqual(['analyze']);
    expect(createReasoningTools({ analyze: false }).tools.map((t) => t.name)).toEqual(['think']);
  });

  it('builds fresh tool instances on every call', async () => {
    expect(toolsOf().think).not.toBe(toolsOf().think);
  });
});

describe('reasoning tool parameters', () => {
  const manager = new ToolManager([createReasoningTools()]);

  it('think: title, thought, optional action, confidence in [0,1] defaulting to 0.8', async () => {
    expect(await checkToolCall(manager, 'think', { title: 'T', thought: 'because' })).toMatchObject({
      kind: 'valid',
      args: { title: 'T', thought: 'because', confidence: 0.8 },
    });
    expect(
      await checkToolCall(manager, 'think', { title: 'T', thought: 't', action: 'call x', confidence: 0.3 }),
    ).toMatchObject({
      kind: 'valid',
      args: { action: 'call x', confidence: 0.3 },
    });
    expect((await checkToolCall(manager, 'think', { title: 'T', thought: 't', confidence: 1.5 })).kind).toBe(
      'invalid-args',
    );
    expect((await checkToolCall(manager, 'think', { title: 'T' })).kind).toBe('invalid-args');
  });

  it('analyze: title, result, analysis, next_action in continue | validate | final_answer', async () => {
    for (const next_action of ['continue', 'validate', 'final_answer']) {
      expect(
        (await checkToolCall(manager, 'analyze', { title: 'A', result: 'r', analysis: 'a', next_action })).kind,
      ).toBe('valid');
    }
    expect(
      (await checkToolCall(manager, 'analyze', { title: 'A', result: 'r', analysis: 'a', next_action: 'stop' })).kind,
    ).toBe('invalid-args');
    const negative = await checkToolCall(manager, 'analyze', {
      title: 'A',
      result: 'r',
      analysis: 'a',
      next_action: 'validate',
      confidence: -1,
    });
    expect(negative.kind).toBe('invalid-args');
  });
});

describe('reasoning tool results', () => {
  async function call(tool: AnyTool, args: unknown) {
    return runToolPipeline({
      tool,
      args,
      toolCallId: 'r1',
      options: createToolExecuteOptions({ toolName: tool.name, toolCallId: 'r1' }),
    });
  }

  it('think returns the recorded-thought string', async () => {
    expect(await call(toolsOf().think!, { title: 'Plan', thought: 'x', confidence: 0.8 })).toMatchObject({
      kind: 'ok',
      output: 'Thought step "Plan" recorded successfully.',
      modelOutput: { type: 'text', value: 'Thought step "Plan" recorded successfully.' },
    });
  });

  it('analyze returns the recorded-analysis string with the next action', async () => {
    expect(
      await call(toolsOf().analyze!, { title: 'Check', result: 'r', analysis: 'a', next_action: 'final_answer' }),
    ).toMatchObject({
      kind: 'ok',
      output: 'Analysis step "Check" recorded successfully. Next action: final_answer.',
    });
  });
});
