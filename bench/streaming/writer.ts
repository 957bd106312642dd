// The streaming bench's agents: one model step that writes `tokens` one-character deltas `delayMs` apart (the first
// at once), as a model writes an answer. Stamped, each delta is replaced by the wall-clock time it was emitted,
// so a watcher in another process on this machine can tell how long each token took to reach it.
// bench/temporal-ai-sdk/scripted-model.mjs's `StampingModel` does the same for @temporalio/ai-sdk's worker.
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { Agent } from '../../src/agent/agent.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../../src/models/scripted-model.js';

/** UTF-8 bytes of one stamped token: 13 digits of `Date.now()` (until the year 2286) and a `|`. */
export const STAMP_BYTES = 14;

/**
 * One writer agent. `stamped`: streamed, each delta a stamp. `letters`: streamed, each delta an `x`. `plain`: not
 * streamed (`streaming: false`): the model answers as one response after the time the streamed step takes, with
 * `textBytes` of text.
 */
export interface WriterSpec {
  name: string;
  kind: 'stamped' | 'letters' | 'plain';
  tokens: number;
  delayMs: number;
  /** `plain` only: the answer's size (default `tokens`), to match a stamped step's final message. */
  textBytes?: number;
}

/** A scripted model whose every text delta is replaced by the time it is emitted: `<epoch ms>|`. */
class StampingModel extends ScriptedLanguageModel {
  override async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { stream, ...rest } = await super.doStream(options);
    const stamp = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      transform(part, controller) {
        controller.enqueue(part.type === 'text-delta' ? { ...part, delta: `${Date.now()}|` } : part);
      },
    });
    return { ...rest, stream: stream.pipeThrough(stamp) };
  }
}

/** The agent a spec describes. */
export function writerAgent(spec: WriterSpec): Agent {
  const streamed: ScriptedReply = {
    text: 'x'.repeat(spec.tokens),
    stream: { chunkChars: 1, chunkDelayMs: spec.delayMs },
  };
  // Not streamed, the model still takes as long as the streamed step (first delta at once, then one per delay).
  const plain: ScriptedReply = {
    text: 'x'.repeat(spec.textBytes ?? spec.tokens),
    delayMs: (spec.tokens - 1) * spec.delayMs,
  };
  const options = { steps: [spec.kind === 'plain' ? plain : streamed], stepSelection: 'assistant-turns' as const };
  const model = spec.kind === 'stamped' ? new StampingModel(options) : new ScriptedLanguageModel(options);
  return new Agent({ name: spec.name, instructions: '', model, maxSteps: 2, streaming: spec.kind !== 'plain' });
}

/** Stamps in a stamped step's final text (each token is one). */
export function countStamps(text: string): number {
  return text.split('|').length - 1;
}
