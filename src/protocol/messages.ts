import type { ModelMessage, ToolResultPart } from 'ai';
import type { JsonValue } from './json.js';

/**
 * A transcript message. It is the AI SDK's `ModelMessage` (a plain JSON shape), imported as a type only so the
 * workflow bundle never loads the SDK.
 */
export type TranscriptMessage = ModelMessage;

/** What the model sees for one tool result (the AI SDK's `ToolResultOutput`). */
export type ToolResultOutput = ToolResultPart['output'];

/**
 * The default encoding of a tool's output for the model: strings as text, everything else as JSON. Tools with
 * `toModelOutput` override it in the tool activity.
 */
export function defaultModelOutput(output: unknown): ToolResultOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  return { type: 'json', value: (output === undefined ? null : output) as JsonValue } as ToolResultOutput;
}

/** Builds the user message(s) a run starts from. */
export function initialMessages(input: string | TranscriptMessage[]): TranscriptMessage[] {
  return typeof input === 'string' ? [{ role: 'user', content: input }] : [...input];
}

/**
 * A run's first messages: the system prompt (when not blank), then the input. The workflow records them; the worker
 * that described the agent caches the same (see `AgentDescription.seedId`).
 */
export function firstMessages(systemPrompt: string, input: TranscriptMessage[]): TranscriptMessage[] {
  return systemPrompt.trim() !== '' ? [{ role: 'system', content: systemPrompt }, ...input] : [...input];
}

/** The text of an assistant message (its text parts joined), or '' when it has none. */
export function assistantText(message: TranscriptMessage | undefined): string {
  if (!message || message.role !== 'assistant') return '';
  if (typeof message.content === 'string') return message.content;
  return message.content
    .filter((part): part is { type: 'text'; text: string } => part.type === 'text')
    .map((part) => part.text)
    .join('');
}
