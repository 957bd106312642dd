import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject, JsonValue } from '../protocol/json.js';
import { toJsonValue } from '../tool/json-safe.js';
import { utf8Bytes } from './bytes.js';
import { McpServerError } from './errors/mcp-server-error.js';
import type { Redactor } from './secrets.js';

/**
 * The result of one MCP tool call as plain JSON (version 1), safe to record in workflow history:
 * - `ok`: the tool succeeded; `output` is what the tool returns to the agent (see {@link normalizeCallResult}).
 * - `tool-error`: the server answered `isError: true`; `message` is its text, `content` its content items.
 */
export type McpCallOutcome =
  | { v: 1; kind: 'ok'; output: JsonValue }
  | { v: 1; kind: 'tool-error'; message: string; content: JsonValue[] };

/** Default bound on an outcome's size: UTF-8 bytes of its JSON. */
export const DEFAULT_MAX_RESULT_BYTES = 512 * 1024;
const MAX_ERROR_MESSAGE_CHARS = 8192;

/**
 * Normalizes a `CallToolResult`. A success becomes, in this order of preference:
 * 1. `structuredContent` when the server sent it (the machine-readable result a tool with an output schema gives);
 * 2. the text of the content items joined with newlines, when every item is text (the common case; `""` when empty);
 * 3. otherwise the content items themselves as JSON (text, image/audio with base64 data, resource links,
 *    embedded resources), so nothing the server sent is lost.
 * `_meta` and content annotations are dropped. Configured secrets are redacted. An outcome larger than
 * `maxResultBytes` throws a `result-too-large` {@link McpServerError} naming the tool: a clear error beats a
 * payload Temporal would refuse.
 */
export function normalizeCallResult(
  result: CallToolResult,
  context: { serverName: string; toolName: string; maxResultBytes?: number; redactor?: Redactor },
): McpCallOutcome {
  const content = (Array.isArray(result.content) ? result.content : []).map(normalizeContent);
  let outcome: McpCallOutcome;
  if (result.isError === true) {
    const text = joinedText(content) ?? '';
    const message = text.length > MAX_ERROR_MESSAGE_CHARS ? `${text.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…` : text;
    outcome = { v: 1, kind: 'tool-error', message, content };
  } else if (result.structuredContent && typeof result.structuredContent === 'object') {
    outcome = { v: 1, kind: 'ok', output: toJsonValue(result.structuredContent) ?? null };
  } else {
    outcome = { v: 1, kind: 'ok', output: joinedText(content) ?? content };
  }
  if (context.redactor) outcome = context.redactor.json(outcome as unknown as JsonObject) as unknown as McpCallOutcome;
  const limit = context.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const bytes = utf8Bytes(JSON.stringify(outcome));
  if (bytes > limit) {
    throw new McpServerError({
      serverName: context.serverName,
      toolName: context.toolName,
      reason: 'result-too-large',
      requestSent: true,
      message:
        `MCP tool '${context.toolName}' on server '${context.serverName}' returned ${bytes} bytes, over the limit ` +
        `of ${limit} (maxResultBytes). Ask the tool for less (a narrower query, a page) or raise the limit.`,
    });
  }
  return outcome;
}

function normalizeContent(item: CallToolResult['content'][number]): JsonValue {
  switch (item.type) {
    case 'text':
      return { type: 'text', text: item.text };
    case 'image':
    case 'audio':
      return { type: item.type, mimeType: item.mimeType, data: item.data };
    case 'resource_link': {
      const link: JsonObject = { type: 'resource_link', uri: item.uri, name: item.name };
      for (const key of ['title', 'description', 'mimeType'] as const) {
        const value = item[key];
        if (typeof value === 'string') link[key] = value;
      }
      return link;
    }
    case 'resource': {
      const { uri, mimeType } = item.resource;
      const resource: JsonObject = { uri };
      if (typeof mimeType === 'string') resource.mimeType = mimeType;
      if ('text' in item.resource && typeof item.resource.text === 'string') resource.text = item.resource.text;
      if ('blob' in item.resource && typeof item.resource.blob === 'string') resource.blob = item.resource.blob;
      return { type: 'resource', resource };
    }
    default: {
      const { _meta: _ignored, ...rest } = item as Record<string, unknown>;
      return toJsonValue(rest) ?? null;
    }
  }
}

function joinedText(content: JsonValue[]): string | undefined {
  const texts: string[] = [];
  for (const item of content) {
    if (!item || typeof item !== 'object' || Array.isArray(item) || item.type !== 'text') return undefined;
    texts.push(typeof item.text === 'string' ? item.text : '');
  }
  return texts.join('\n');
}
