// The reasoning toolkit's public pieces, for importing the folder as a whole.
export { createReasoningTools } from './create-reasoning-tools.js';
export { DEFAULT_REASONING_FEW_SHOT_EXAMPLES, DEFAULT_REASONING_INSTRUCTIONS } from './instructions.js';
export { createAnalyzeTool, createThinkTool } from './tools.js';
export { NextAction, analyzeParameters, thinkParameters, type ReasoningToolsOptions } from './types.js';
