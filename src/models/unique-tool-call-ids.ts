import type { LanguageModelV4Content, LanguageModelV4Middleware } from '@ai-sdk/provider';

/**
 * Makes the tool-call ids of one model response unique before the AI SDK reads it. A provider may repeat an id
 * within a response (or leave it empty); the SDK keys calls by id, so the second call would run with the first
 * call's arguments and its own would be lost. Each repeat gets `<id>~2`, `<id>~3`, … — on the call and on any
 * provider-executed result that answers it, in order.
 */
export const uniqueToolCallIds: LanguageModelV4Middleware = {
  specificationVersion: 'v4',
  wrapGenerate: async ({ doGenerate }) => {
    const result = await doGenerate();
    return { ...result, content: renameRepeatedIds(result.content) };
  },
};

/** The content with repeated (or empty) tool-call ids renamed; unchanged when every id is unique. */
export function renameRepeatedIds(content: LanguageModelV4Content[]): LanguageModelV4Content[] {
  const taken = new Set<string>();
  // A provider-executed result follows its call: it takes the id its call was renamed to.
  const pendingResults = new Map<string, string[]>();
  let changed = false;
  const renamed = content.map((part) => {
    if (part.type === 'tool-call') {
      const base = part.toolCallId || 'call';
      let id = base;
      for (let n = 2; taken.has(id); n++) id = `${base}~${n}`;
      taken.add(id);
      if (part.providerExecuted)
        pendingResults.set(part.toolCallId, [...(pendingResults.get(part.toolCallId) ?? []), id]);
      if (id === part.toolCallId) return part;
      changed = true;
      return { ...part, toolCallId: id };
    }
    if (part.type === 'tool-result') {
      const id = pendingResults.get(part.toolCallId)?.shift();
      if (id === undefined || id === part.toolCallId) return part;
      changed = true;
      return { ...part, toolCallId: id };
    }
    return part;
  });
  return changed ? renamed : content;
}
