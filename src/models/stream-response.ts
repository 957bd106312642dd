import {
  InvalidResponseDataError,
  type LanguageModelV4Content,
  type LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import type { ProviderResponse } from './model-response.js';

/**
 * A piece of the model's output as it arrives: text, reasoning, or the arguments text of a tool call. `id` is the
 * provider's id of the part, so deltas of parts written side by side can be told apart; for a tool call it is the
 * call's `toolCallId` in the result (a repeated or empty provider id renamed as the result renames it).
 */
export type ModelDelta =
  | { type: 'text'; id: string; delta: string }
  | { type: 'reasoning'; id: string; delta: string }
  | { type: 'tool-input'; id: string; toolName: string; delta: string };

/** Receives each {@link ModelDelta} of a streamed model call, in order. */
export type ModelDeltaListener = (delta: ModelDelta) => void;

type TextLike = Extract<LanguageModelV4Content, { type: 'text' | 'reasoning' }>;

/**
 * Reads a provider stream to its end, reporting deltas as they arrive, and assembles the same response
 * `doGenerate` would have returned: text and reasoning parts in the order they started (their deltas joined, the
 * metadata of their start or end), every other content part as it came, warnings, usage and finish reason.
 *
 * An `error` part or a stream that ends without `finish` throws (after the deltas already reported): the caller
 * classifies it, and the activity is retried. The reader is released either way, which cancels the response body.
 */
export async function readModelStream(
  stream: ReadableStream<LanguageModelV4StreamPart>,
  onDelta: ModelDeltaListener,
): Promise<ProviderResponse> {
  const content: LanguageModelV4Content[] = [];
  const open = new Map<string, TextLike>();
  // Tool input by the provider's id → [the id the call will have in the result, its tool name].
  const toolInputs = new Map<string, [string, string]>();
  const takenToolIds = new Set<string>();
  let warnings: ProviderResponse['warnings'] = [];
  let finish: Extract<LanguageModelV4StreamPart, { type: 'finish' }> | undefined;

  // Text and reasoning share the shape; the key keeps a text id and a reasoning id that happen to match apart.
  const textPart = (type: TextLike['type'], id: string, metadata?: TextLike['providerMetadata']): TextLike => {
    const key = `${type}:${id}`;
    const existing = open.get(key);
    if (existing) return existing;
    const part: TextLike = { type, text: '', ...(metadata ? { providerMetadata: metadata } : {}) };
    open.set(key, part);
    content.push(part);
    return part;
  };

  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) break;
      switch (part.type) {
        case 'text-start':
        case 'reasoning-start':
          textPart(part.type === 'text-start' ? 'text' : 'reasoning', part.id, part.providerMetadata);
          break;
        case 'text-delta':
        case 'reasoning-delta': {
          const type = part.type === 'text-delta' ? 'text' : 'reasoning';
          textPart(type, part.id).text += part.delta;
          if (part.delta !== '') onDelta({ type, id: part.id, delta: part.delta });
          break;
        }
        case 'text-end':
        case 'reasoning-end': {
          const type = part.type === 'text-end' ? 'text' : 'reasoning';
          const done = textPart(type, part.id);
          if (part.providerMetadata) done.providerMetadata = part.providerMetadata;
          // A provider may reuse an id for a later part: the next start opens a new one.
          open.delete(`${type}:${part.id}`);
          break;
        }
        case 'tool-input-start':
          toolInputs.set(part.id, [uniqueId(part.id || 'call', takenToolIds), part.toolName]);
          break;
        case 'tool-input-delta': {
          const [id, toolName] = toolInputs.get(part.id) ?? [part.id, ''];
          if (part.delta !== '') onDelta({ type: 'tool-input', id, toolName, delta: part.delta });
          break;
        }
        case 'tool-input-end':
          toolInputs.delete(part.id);
          break;
        case 'stream-start':
          warnings = part.warnings;
          break;
        case 'finish':
          finish = part;
          break;
        case 'error':
          throw part.error;
        case 'response-metadata':
        case 'ping':
        case 'raw':
          break;
        default:
          // tool-call, tool-result, tool-approval-request, file, reasoning-file, source, custom: content as is.
          content.push(part);
      }
    }
  } finally {
    // Cancels the body when we stop early (an error part, a throwing listener); a no-op after the end.
    await reader.cancel().catch(() => undefined);
  }
  if (!finish) {
    // Classified as Model.InvalidResponse, retryable: a cut connection usually is, and a new attempt starts over.
    throw new InvalidResponseDataError({
      data: undefined,
      message:
        "The model's stream ended before its finish part (the connection was probably cut); the call is retried.",
    });
  }
  return {
    content,
    finishReason: finish.finishReason,
    usage: finish.usage,
    warnings,
    ...(finish.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
  };
}

/**
 * The id a streamed tool call's deltas are reported under: the provider's, renamed the way the result renames a
 * repeated id (`<id>~2`, … in order; see `renameRepeatedIds`), so deltas and the final call carry the same id.
 */
function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}~${n}`;
  taken.add(id);
  return id;
}
