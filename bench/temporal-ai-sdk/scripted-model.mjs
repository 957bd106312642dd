// A tiny stand-in for durable-agent's ScriptedLanguageModel, written for this folder: it runs in the worker of
// Temporal's @temporalio/ai-sdk, whose dependency tree cannot load durable-agent's sources. It answers with no
// I/O and no timers, statelessly: the step is the number of assistant messages already in the prompt, like
// `stepSelection: 'assistant-turns'`, so concurrent runs and retried activities all get the right reply.
//
// The script travels in the model id, `scripted:<toolSteps>:<bytes>`: steps 0..toolSteps-1 each call
// `lookup({ key: 'k<i>', bytes })` with the id `call_<i>_0`, then one step answers `done`. Same replies, ids
// and usage as bench/workload.ts gives durable-agent and the in-process AI SDK loop.

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

/** A V4 provider whose language models are {@link ScriptedModel}s. */
export const scriptedProvider = {
  specificationVersion: 'v4',
  /** @param {string} modelId */
  languageModel: (modelId) => new ScriptedModel(modelId),
  embeddingModel: () => {
    throw new Error('The bench provider has no embedding model.');
  },
  imageModel: () => {
    throw new Error('The bench provider has no image model.');
  },
};
