import { createHash } from 'node:crypto';
import type { Tool as SdkTool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../protocol/json.js';
import { getGlobalLogger } from '../logger.js';
import { toJsonValue } from '../tool/json-safe.js';
import { utf8Bytes } from './bytes.js';
import type { Redactor } from './secrets.js';

/** MCP tool annotations (hints about a tool's behaviour; untrusted, from the server). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One remote tool as plain JSON: what a durable run records, and what tools are rebuilt from on any worker. */
export interface McpToolDefinition {
  /** The tool's own name on its server. */
  name: string;
  title?: string;
  description?: string;
  /** JSON Schema of the arguments (an object schema). */
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: McpToolAnnotations;
}

/** A server's tool listing, bounded and free of configured secrets. */
export interface McpServerListing {
  serverName: string;
  /** Content hash of `tools`: equal listings have equal versions on every worker. */
  version: string;
  tools: McpToolDefinition[];
  /** Entries left out, with the reason (also logged). */
  skipped: Array<{ name: string; reason: string }>;
}

/** Bounds on a listing (a server is untrusted input). */
export interface McpListingLimits {
  /** Tools kept per server; the rest are skipped. Default 256. */
  maxTools: number;
  /** UTF-8 bytes of one tool's input + output schema; a larger tool is skipped. Default 64 KiB. */
  maxSchemaBytes: number;
  /** Longer descriptions are cut. Default 4096 characters. */
  maxDescriptionChars: number;
}

/** The default {@link McpListingLimits}. */
export const DEFAULT_LISTING_LIMITS: McpListingLimits = {
  maxTools: 256,
  maxSchemaBytes: 64 * 1024,
  maxDescriptionChars: 4096,
};

// Tool names per the MCP spec's guidance (letters, digits, `_`, `-`, `.`, `/`), 1 to 128 characters.
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * Turns a server's `tools/list` result into a {@link McpServerListing}: invalid names, duplicates, oversized
 * schemas and tools past `maxTools` are skipped (each with a logged reason); descriptions are cut to size;
 * annotations keep only the known hints; secrets are redacted everywhere.
 */
export function normalizeListing(
  serverName: string,
  tools: readonly SdkTool[],
  limits: McpListingLimits = DEFAULT_LISTING_LIMITS,
  redactor?: Redactor,
): McpServerListing {
  const kept: McpToolDefinition[] = [];
  const skipped: Array<{ name: string; reason: string }> = [];
  const seen = new Set<string>();
  const skip = (name: string, reason: string): void => {
    const safeName = String(name).slice(0, 128);
    skipped.push({ name: safeName, reason });
    getGlobalLogger().warn(`MCP server '${serverName}': tool '${safeName}' skipped: ${reason}`);
  };
  for (const tool of tools) {
    const name = typeof tool.name === 'string' ? tool.name : '';
    if (!TOOL_NAME.test(name)) {
      skip(name, 'its name is not 1-128 letters, digits or _ - . /');
      continue;
    }
    if (seen.has(name)) {
      skip(name, 'a tool of the same name came earlier in the listing');
      continue;
    }
    const inputSchema = toJsonValue(tool.inputSchema) as JsonObject;
    const outputSchema = tool.outputSchema ? (toJsonValue(tool.outputSchema) as JsonObject) : undefined;
    const schemaBytes =
      utf8Bytes(JSON.stringify(inputSchema)) + (outputSchema ? utf8Bytes(JSON.stringify(outputSchema)) : 0);
    if (schemaBytes > limits.maxSchemaBytes) {
      skip(name, `its schemas are ${schemaBytes} bytes, over the limit of ${limits.maxSchemaBytes} (maxSchemaBytes)`);
      continue;
    }
    if (kept.length >= limits.maxTools) {
      skip(name, `the server lists more than ${limits.maxTools} tools (maxTools)`);
      continue;
    }
    seen.add(name);
    const definition: McpToolDefinition = { name, inputSchema };
    if (typeof tool.title === 'string') definition.title = tool.title.slice(0, 256);
    if (typeof tool.description === 'string' && tool.description) {
      definition.description =
        tool.description.length > limits.maxDescriptionChars
          ? `${tool.description.slice(0, limits.maxDescriptionChars - 1)}…`
          : tool.description;
    }
    if (outputSchema) definition.outputSchema = outputSchema;
    const annotations = pickAnnotations(tool.annotations);
    if (annotations) definition.annotations = annotations;
    kept.push(
      redactor ? (redactor.json(definition as unknown as JsonObject) as unknown as McpToolDefinition) : definition,
    );
  }
  return { serverName, version: listingVersion(kept), tools: kept, skipped };
}

/** The content hash of a tool list (first 16 hex digits of SHA-256 over its JSON). */
export function listingVersion(tools: readonly McpToolDefinition[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex').slice(0, 16);
}

function pickAnnotations(raw: SdkTool['annotations']): McpToolAnnotations | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const out: McpToolAnnotations = {};
  if (typeof raw.title === 'string') out.title = raw.title.slice(0, 256);
  for (const hint of HINTS) if (typeof raw[hint] === 'boolean') out[hint] = raw[hint];
  return Object.keys(out).length > 0 ? out : undefined;
}
