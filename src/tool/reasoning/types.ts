import { z } from 'zod';

/** What the model may decide after an `analyze` step. */
export const NextAction = {
  CONTINUE: 'continue',
  VALIDATE: 'validate',
  FINAL_ANSWER: 'final_answer',
} as const;

/** One of {@link NextAction}'s values. */
export type NextAction = (typeof NextAction)[keyof typeof NextAction];

/** Parameters of the `think` tool. */
export const thinkParameters = z.object({
  title: z.string().describe('A few words naming this thinking step'),
  thought: z.string().describe('Your reasoning for this step: what you know, what is missing, what to try'),
  action: z.string().optional().describe('What you intend to do next, e.g. which tool to call and why'),
  confidence: z.number().min(0).max(1).optional().default(0.8).describe('How sure you are, from 0 to 1'),
});

/** Parameters of the `analyze` tool. */
export const analyzeParameters = z.object({
  title: z.string().describe('A few words naming this analysis step'),
  result: z.string().describe('The outcome being examined, e.g. a tool result or an intermediate answer'),
  analysis: z.string().describe('What the outcome means, whether it is correct and sufficient'),
  next_action: z
    .enum([NextAction.CONTINUE, NextAction.VALIDATE, NextAction.FINAL_ANSWER])
    .describe('continue: more work is needed; validate: check the result first; final_answer: ready to answer'),
  confidence: z.number().min(0).max(1).optional().default(0.8).describe('How sure you are, from 0 to 1'),
});

/** Options of `createReasoningTools`. */
export interface ReasoningToolsOptions {
  /** Put the reasoning instructions into the system prompt. Default true. */
  addInstructions?: boolean;
  /** Include the `think` tool. Default true. */
  think?: boolean;
  /** Include the `analyze` tool. Default true. */
  analyze?: boolean;
  /** Append worked examples to the instructions. Default true; ignored without instructions. */
  addFewShot?: boolean;
  /** Your own examples instead of the built-in ones. */
  fewShotExamples?: string;
}
