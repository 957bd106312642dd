import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';

// Helpers shared by the in-process models (offline demo, scripted). They answer whole responses at once, so
// streaming is the same response replayed as stream parts: one code path decides what to say, and `streamText`
// users see exactly what `generateText` users see.

/** How {@link resultToStream} paces a replayed response (scripted streaming for tests and benchmarks). */
export interface StreamPacing {
  /** Split text, reasoning and tool-call arguments into deltas of this many characters. Default: one delta each. */
  chunkChars?: number;
  /** Wait this long before each delta after the first (abortable). Default 0: no timer. */
  chunkDelayMs?: number;
  /** Error the stream after this many deltas, as a connection cut mid-answer would. */
  failAfterChunks?: number;
  /** The call's abort signal: aborting ends a wait between deltas and errors the stream with its reason. */
  abortSignal?: AbortSignal;
}

/**
 * Replays a complete generate result as a V4 stream: text and reasoning as start/delta/end (metadata on the end),
 * each tool call's arguments as tool-input deltas before the call itself, other parts as they are.
 */
export function resultToStream(
  result: LanguageModelV4GenerateResult,
  pacing: StreamPacing = {},
): LanguageModelV4StreamResult {
  const split = (text: string): string[] => {
    const size = pacing.chunkChars;
    if (!size || size <= 0 || text.length <= size) return [text];
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    return chunks;
  };
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: result.warnings }];
  result.content.forEach((part: LanguageModelV4Content, index) => {
    if (part.type === 'text' || part.type === 'reasoning') {
      const id = `${part.type}-${index}`;
      const metadata = part.providerMetadata ? { providerMetadata: part.providerMetadata } : {};
      parts.push({ type: `${part.type}-start`, id });
      for (const delta of split(part.text)) parts.push({ type: `${part.type}-delta`, id, delta });
      parts.push({ type: `${part.type}-end`, id, ...metadata });
    } else if (part.type === 'tool-call' && !part.providerExecuted) {
      const id = part.toolCallId;
      parts.push({ type: 'tool-input-start', id, toolName: part.toolName });
      for (const delta of split(part.input)) parts.push({ type: 'tool-input-delta', id, delta });
      parts.push({ type: 'tool-input-end', id }, part);
    } else {
      parts.push(part);
    }
  });
  parts.push({
    type: 'finish',
    usage: result.usage,
    finishReason: result.finishReason,
    ...(result.providerMetadata ? { providerMetadata: result.providerMetadata } : {}),
  });

  let next = 0;
  let deltas = 0;
  const isDelta = (part: LanguageModelV4StreamPart) => part.type.endsWith('-delta');
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      const part = parts[next++];
      if (part === undefined) {
        controller.close();
        return;
      }
      if (isDelta(part)) {
        if (pacing.failAfterChunks !== undefined && deltas >= pacing.failAfterChunks) {
          controller.error(new Error(`The scripted stream was cut after ${deltas} deltas.`));
          return;
        }
        if (deltas > 0 && pacing.chunkDelayMs) await sleep(pacing.chunkDelayMs, pacing.abortSignal);
        deltas++;
      }
      pacing.abortSignal?.throwIfAborted();
      controller.enqueue(part);
    },
  });
  return { stream };
}

/** A rough, deterministic token count (four characters a token), so offline runs still report usage. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Usage in the V4 shape from plain input/output counts. */
export function makeUsage(inputTokens: number, outputTokens: number): LanguageModelV4Usage {
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
  };
}

/** The size of a prompt in estimated tokens (message text and tool payloads, serialized). */
export function estimatePromptTokens(options: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools'>): number {
  return estimateTokens(JSON.stringify(options.prompt)) + estimateTokens(JSON.stringify(options.tools ?? []));
}

/** The text of the last user message of a prompt ('' when there is none). */
export function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role === 'user') {
      return message.content
        .filter((part) => part.type === 'text')
        .map((part) => part.text)
        .join('\n');
    }
  }
  return '';
}

/**
 * Waits `ms`, rejecting with the signal's reason when it aborts first: a delayed scripted or offline reply must
 * still honour cancellation, exactly like an HTTP request would.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
