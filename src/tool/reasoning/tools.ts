import { createTool, type Tool } from '../tool.js';
import { analyzeParameters, thinkParameters } from './types.js';

/**
 * Builds the `think` tool. Its result is only an acknowledgement: the value of the step is the arguments, which
 * stay in the transcript (and, in a durable run, in the run's history and events).
 */
export function createThinkTool(): Tool<typeof thinkParameters> {
  return createTool({
    id: 'reasoning-think',
    name: 'think',
    description:
      'A private scratchpad. Use it to plan, break a problem down, reflect on what you know and decide what to do next. The user does not see it.',
    parameters: thinkParameters,
    execute: ({ title }) => `Thought step "${title}" recorded successfully.`,
  });
}

/** Builds the `analyze` tool, used to judge a result and choose the next action. */
export function createAnalyzeTool(): Tool<typeof analyzeParameters> {
  return createTool({
    id: 'reasoning-analyze',
    name: 'analyze',
    description:
      'Judge a result (a tool output or an intermediate answer): is it correct and sufficient? Decide whether to continue, validate, or give the final answer.',
    parameters: analyzeParameters,
    execute: ({ title, next_action }) => `Analysis step "${title}" recorded successfully. Next action: ${next_action}.`,
  });
}
