// A tiny stand-in for durable-agent's ScriptedLanguageModel, written for this folder: it runs in the worker of
// Temporal's @temporalio/ai-sdk, whose dependency tree cannot load durable-agent's sources. It answers with no
// I/O and no timers, statelessly: the step is the number of assistant messages already in the prompt, like
// `stepSelection: 'assistant-turns'`, so concurrent runs and retried activities all get the right reply.
//
// The script travels in the model id, `scripted:<toolSteps>:<bytes>`: steps 0..toolSteps-1 each call
// `lookup({ key: 'k<i>', bytes })` with the id `call_<i>_0`, then one step answers `done`. Same replies, ids
// and usage as bench/workload.ts gives durable-agent and the in-process AI SDK loop.
//
// `stamping:<tokens>:<delayMs>` is bench/streaming.ts's model for delivery latency: it only streams, `tokens` text
// deltas `delayMs` apart (the first at once), each delta the wall-clock time it was emitted, `<epoch ms>|` (see
// StampingModel in bench/streaming/writer.ts, which does the same over durable-agent's ScriptedLanguageModel).
import { ReadableStream } from 'node:stream/web';
import { setTimeout as delay } from 'node:timers/promises';

/** The model of one script. */
class ScriptedModel {
  specificationVersion = 'v4';
  provider = 'scripted';
  supportedUrls = {};

  /** @param {string} modelId */
  constructor(modelId) {
    const [kind, toolSteps, bytes] = modelId.split(':');
    if (kind !== 'scripted' || !toolSteps || !bytes) throw new Error(`Unknown bench model id: ${modelId}`);
    this.modelId = modelId;
    this.toolSteps = Number(toolSteps);
    this.bytes = Number(bytes);
  }

  /** @param {{ prompt: Array<{ role: string }> }} options */
  async doGenerate(options) {
    const step = options.prompt.filter((message) => message.role === 'assistant').length;
    const usage = {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 5, text: 5, reasoning: undefined },
    };
    if (step < this.toolSteps) {
      const input = JSON.stringify({ key: `k${step}`, bytes: this.bytes });
      return {
        content: [{ type: 'tool-call', toolCallId: `call_${step}_0`, toolName: 'lookup', input }],
        finishReason: { unified: 'tool-calls', raw: 'tool-calls' },
        usage,
        warnings: [],
      };
    }
    if (step === this.toolSteps) {
      return {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
    }
    throw new Error(`Bench model ${this.modelId} has no step ${step}.`);
  }

  async doStream() {
    throw new Error('The bench model does not stream.');
  }
}

/** A model that streams timed text deltas, each stamped with the time it was emitted (see the top of this file). */
class StampingModel {
  specificationVersion = 'v4';
  provider = 'scripted';
  supportedUrls = {};

  /** @param {string} modelId */
  constructor(modelId) {
    const [kind, tokens, delayMs] = modelId.split(':');
    if (kind !== 'stamping' || !tokens || !delayMs) throw new Error(`Unknown bench model id: ${modelId}`);
    this.modelId = modelId;
    this.tokens = Number(tokens);
    this.delayMs = Number(delayMs);
  }

  async doGenerate() {
    throw new Error('The stamping model only streams (set languageModel.streamingTopic and call streamText).');
  }

  /**
   * The parts ScriptedLanguageModel streams for a one-text reply (stream-start, text-start, the deltas, text-end,
   * finish), paced the same way: no wait before the first delta, `delayMs` before each later one. The stamp is
   * taken as the delta is handed over, so it is when the model emitted it.
   *
   * @param {{ abortSignal?: AbortSignal }} options
   */
  async doStream(options) {
    const { tokens, delayMs } = this;
    const id = 'text-0';
    const usage = {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: tokens, text: tokens, reasoning: undefined },
    };
    let next = 0;
    const stream = new ReadableStream({
      async pull(controller) {
        const index = next++;
        if (index === 0) controller.enqueue({ type: 'stream-start', warnings: [] });
        else if (index === 1) controller.enqueue({ type: 'text-start', id });
        else if (index < tokens + 2) {
          if (index > 2) await delay(delayMs, undefined, { signal: options.abortSignal });
          controller.enqueue({ type: 'text-delta', id, delta: `${Date.now()}|` });
        } else if (index === tokens + 2) controller.enqueue({ type: 'text-end', id });
        else if (index === tokens + 3) {
          controller.enqueue({ type: 'finish', usage, finishReason: { unified: 'stop', raw: 'stop' } });
        } else controller.close();
      },
    });
    return { stream };
  }
}

/** A V4 provider whose language models are {@link ScriptedModel}s, or {@link StampingModel}s for `stamping:` ids. */
export const scriptedProvider = {
  specificationVersion: 'v4',
  /** @param {string} modelId */
  languageModel: (modelId) =>
    modelId.startsWith('stamping:') ? new StampingModel(modelId) : new ScriptedModel(modelId),
  embeddingModel: () => {
    throw new Error('The bench provider has no embedding model.');
  },
  imageModel: () => {
    throw new Error('The bench provider has no image model.');
  },
};
