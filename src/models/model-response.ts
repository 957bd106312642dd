import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4ToolCall,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { convertUint8ArrayToBase64 } from '@ai-sdk/provider-utils';
import { InvalidToolInputError, NoSuchToolError, ToolChoiceViolationError, type ModelMessage, type ToolSet } from 'ai';
import { asLanguageModelUsage, logWarnings, parseToolCall, toResponseMessages } from 'ai/internal';
import type { ModelCallResult, RawToolCall } from './call-model.js';
import { renameRepeatedIds } from './unique-tool-call-ids.js';

/** What a provider answered, from `doGenerate` or assembled from `doStream`. */
export interface ProviderResponse {
  content: LanguageModelV4Content[];
  finishReason: LanguageModelV4FinishReason;
  usage: LanguageModelV4Usage;
  warnings: SharedV4Warning[];
  providerMetadata?: SharedV4ProviderMetadata;
}

export type ParsedToolCall = Awaited<ReturnType<typeof parseToolCall<ToolSet>>>;
type ContentPart = Parameters<typeof toResponseMessages<ToolSet>>[0]['content'][number];

/**
 * Turns one provider response into a {@link ModelCallResult} the way `generateText` reads a step: repeated tool-call
 * ids renamed, tool calls parsed by the SDK (no repair function: a wrong call comes back raw), the SDK's tool-choice
 * check, its warnings log, and its response messages (minus the tool message it would add for invalid calls: the
 * runtime writes its own results).
 */
export async function toModelCallResult(
  model: LanguageModelV4,
  call: { callOptions: LanguageModelV4CallOptions; tools: ToolSet },
  response: ProviderResponse,
): Promise<ModelCallResult> {
  return (await readProviderResponse(model, call, response)).result;
}

/** A provider response read as {@link toModelCallResult} reads it, with the parts telemetry reports on the way. */
export interface ReadProviderResponse {
  /** The provider content with repeated tool-call ids renamed. */
  content: LanguageModelV4Content[];
  /** Every tool call in it, parsed by the SDK (invalid ones marked). */
  toolCalls: ParsedToolCall[];
  result: ModelCallResult;
}

/**
 * {@link toModelCallResult}, also returning the renamed content and the parsed tool calls (what the traced path
 * reports to the SDK's telemetry). The tool-choice check runs after `beforeCheck`, as `generateText` reports the
 * model call's end before it checks.
 */
export async function readProviderResponse(
  model: LanguageModelV4,
  call: { callOptions: LanguageModelV4CallOptions; tools: ToolSet },
  response: ProviderResponse,
  beforeCheck?: (read: { content: LanguageModelV4Content[]; toolCalls: ParsedToolCall[] }) => Promise<void>,
): Promise<ReadProviderResponse> {
  logWarnings({ warnings: response.warnings, provider: model.provider, model: model.modelId });
  const content = renameRepeatedIds(response.content);
  const parsed = await Promise.all(
    content
      .filter((part): part is LanguageModelV4ToolCall => part.type === 'tool-call')
      .map((toolCall) =>
        parseToolCall({
          toolCall,
          tools: call.tools,
          repairToolCall: undefined,
          instructions: undefined,
          messages: [],
          abortSignal: call.callOptions.abortSignal,
        }),
      ),
  );
  await beforeCheck?.({ content, toolCalls: parsed });
  checkToolChoice(model, call.callOptions.toolChoice, response, parsed);

  const responseMessages = await toResponseMessages({ content: toContentParts(content, parsed), tools: call.tools });
  const usage = asLanguageModelUsage(response.usage);
  const result = toPlainJson({
    text: content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    toolCalls: parsed
      .filter((toolCall) => !toolCall.providerExecuted)
      .map((toolCall) =>
        toRawToolCall(
          toolCall.toolCallId,
          toolCall.toolName,
          toolCall.input,
          toolCall.invalid ? toolCall.error : undefined,
        ),
      ),
    finishReason: response.finishReason.unified,
    usage: {
      inputTokens: usage.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      totalTokens: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
    },
    responseMessages: responseMessages.filter((message) => message.role !== 'tool') as ModelMessage[],
    ...(response.providerMetadata ? { providerMetadata: response.providerMetadata } : {}),
  });
  return { content, toolCalls: parsed, result };
}

/** `generateText`'s rule: a forced tool choice the response ignored is an error, not an answer. */
function checkToolChoice(
  model: LanguageModelV4,
  toolChoice: LanguageModelV4CallOptions['toolChoice'],
  response: ProviderResponse,
  toolCalls: ParsedToolCall[],
): void {
  if (toolChoice === undefined || toolChoice.type === 'auto') return;
  const violated =
    toolChoice.type === 'none'
      ? toolCalls.length > 0
      : response.finishReason.unified !== 'interrupted' &&
        !toolCalls.some((call) => toolChoice.type === 'required' || call.toolName === toolChoice.toolName);
  if (!violated) return;
  throw new ToolChoiceViolationError({
    toolChoice,
    finishReason: response.finishReason.unified,
    provider: model.provider,
    modelId: model.modelId,
    content: response.content,
  } as ConstructorParameters<typeof ToolChoiceViolationError>[0]);
}

/** The provider content as the SDK's content parts (what `toResponseMessages` reads), tool calls as parsed. */
function toContentParts(content: LanguageModelV4Content[], toolCalls: ParsedToolCall[]): ContentPart[] {
  const parts: ContentPart[] = [];
  const callsById = new Map(toolCalls.map((call) => [call.toolCallId, call]));
  for (const part of content) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
      case 'custom':
      case 'source':
        parts.push(part as ContentPart);
        break;
      case 'file':
      case 'reasoning-file':
        parts.push({
          type: part.type,
          file: { base64: fileData(part.data), mediaType: part.mediaType },
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        } as ContentPart);
        break;
      case 'tool-call': {
        const call = callsById.get(part.toolCallId);
        if (call) parts.push(call as ContentPart);
        break;
      }
      case 'tool-result': {
        const call = callsById.get(part.toolCallId);
        parts.push({
          type: part.isError ? 'tool-error' : 'tool-result',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: call?.input,
          [part.isError ? 'error' : 'output']: part.result,
          providerExecuted: true,
          dynamic: call?.dynamic ?? part.dynamic,
          ...(part.providerMetadata ? { providerMetadata: part.providerMetadata } : {}),
        } as ContentPart);
        break;
      }
      case 'tool-approval-request': {
        const call = callsById.get(part.toolCallId);
        if (call)
          parts.push({ type: 'tool-approval-request', approvalId: part.approvalId, toolCall: call } as ContentPart);
        break;
      }
    }
  }
  return parts;
}

// A generated file's data for the transcript: base64 as the SDK stores it; a URL is kept as the URL (not fetched).
function fileData(data: Extract<LanguageModelV4Content, { type: 'file' }>['data']): string {
  if (data.type === 'url') return data.url.toString();
  return typeof data.data === 'string' ? data.data : convertUint8ArrayToBase64(data.data);
}

/** A parsed tool call as the runtime reads it: raw text and the parse error when the arguments were not JSON. */
export function toRawToolCall(toolCallId: string, toolName: string, input: unknown, error: unknown): RawToolCall {
  const call: RawToolCall = { toolCallId, toolName, input };
  if (InvalidToolInputError.isInstance(error)) {
    // With a validator-free schema, the only input error is text that is not JSON: hand back the raw text.
    call.input = error.toolInput;
    // The innermost message ("Unexpected end of JSON input") reads better than the SDK's wrapper text.
    const parseError = error.cause instanceof Error ? error.cause : error;
    call.inputParseError = parseError.cause instanceof Error ? parseError.cause.message : parseError.message;
  } else if (NoSuchToolError.isInstance(error) && typeof input === 'string' && !parsesAsJson(input)) {
    // Unknown tool and unparsable text: the SDK kept the raw text; say so, as for a known tool.
    call.inputParseError = 'Tool arguments are not valid JSON.';
  }
  return call;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * A JSON round trip: drops `undefined` fields and turns anything exotic into JSON, so what the activity returns is
 * exactly what Temporal will store and the workflow will read back.
 */
export function toPlainJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
