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

/** Replays a complete generate result as a V4 stream (one delta per text part). */
export function resultToStream(result: LanguageModelV4GenerateResult): LanguageModelV4StreamResult {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: result.warnings }];
  result.content.forEach((part: LanguageModelV4Content, index) => {
    if (part.type === 'text') {
      const id = `text-${index}`;
      parts.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: part.text }, { type: 'text-end', id });
    } else if (part.type === 'reasoning') {
      const id = `reasoning-${index}`;
      parts.push(
        { type: 'reasoning-start', id },
        { type: 'reasoning-delta', id, delta: part.text },
        { type: 'reasoning-end', id },
      );
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
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
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
