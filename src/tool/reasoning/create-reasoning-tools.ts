import { createToolkit, type Toolkit } from '../toolkit.js';
import type { AnyTool } from '../tool.js';
import { buildReasoningInstructions } from './instructions.js';
import { createAnalyzeTool, createThinkTool } from './tools.js';
import type { ReasoningToolsOptions } from './types.js';

/**
 * The `reasoning_tools` toolkit: `think` (id `reasoning-think`) and `analyze` (id `reasoning-analyze`), with
 * instructions wrapped in `<reasoning_instructions>` (and worked examples unless `addFewShot` is false) that are
 * added to the system prompt unless `addInstructions` is false. Fresh tool instances on every call.
 */
export function createReasoningTools({
  addInstructions = true,
  think = true,
  analyze = true,
  addFewShot = true,
  fewShotExamples,
}: ReasoningToolsOptions = {}): Toolkit {
  const tools: AnyTool[] = [];
  if (think) tools.push(createThinkTool());
  if (analyze) tools.push(createAnalyzeTool());
  return createToolkit({
    name: 'reasoning_tools',
    description: 'Tools for structured, step-by-step reasoning: think before acting, analyze results.',
    instructions: addInstructions ? buildReasoningInstructions(addFewShot, fewShotExamples) : undefined,
    addInstructions,
    tools,
  });
}
