import type { Toolkit } from '../tool/toolkit.js';

/** The parts a system prompt is made of, in order. */
export interface SystemPromptParts {
  instructions: string;
  /** Toolkits in prompt order; those with `addInstructions` and `instructions` contribute them. */
  toolkits: readonly Toolkit[];
  markdown?: boolean;
  /** Text from the retriever; ignored when blank. */
  retrievedContext?: string;
}

/** The markdown instruction, as in VoltAgent. */
export const MARKDOWN_INSTRUCTION = 'Use markdown to format your answers.';

/**
 * Assembles the system prompt: instructions, then `\n\n<instructions>` of each toolkit that asks for it, then the
 * markdown instruction, then `\n\nRelevant Context:\n<text>`. Pure, so the same parts give the same prompt.
 */
export function assembleSystemPrompt({
  instructions,
  toolkits,
  markdown,
  retrievedContext,
}: SystemPromptParts): string {
  let text = instructions;
  for (const toolkit of toolkits) {
    if (toolkit.addInstructions && toolkit.instructions) text += `\n\n${toolkit.instructions}`;
  }
  if (markdown) text += `\n\n${MARKDOWN_INSTRUCTION}`;
  if (retrievedContext && retrievedContext.trim()) text += `\n\nRelevant Context:\n${retrievedContext}`;
  return text;
}
