import { createHash } from 'node:crypto';
import type { Tool as SdkTool } from '@modelcontextprotocol/sdk/types.js';
import type { Ajv } from 'ajv';
import type { JsonObject } from '../protocol/json.js';
import { getGlobalLogger } from '../logger.js';
import { toJsonValue } from '../tool/json-safe.js';
import { utf8Bytes } from './bytes.js';
import { createServerSchemaAjv, schemaProblem } from './schema-validator.js';
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

/**
 * Entries of a listing's `skipped` list named one by one; the rest are summed up in one last entry (name `*`), so
 * a listing of 50,000 broken tools stays small in history and in the log.
 */
export const MAX_SKIPPED_ENTRIES = 32;

// Tool names per the MCP spec's guidance (letters, digits, `_`, `-`, `.`, `/`), 1 to 128 characters.
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * Turns a server's `tools/list` result into a {@link McpServerListing}: invalid names, duplicates, oversized
 * schemas, schemas that cannot be compiled (with linear-time regexes: see `createServerSchemaAjv`), names holding
 * a configured secret and tools past `maxTools` are skipped, each only that tool, with its reason; descriptions
 * are cut to size; annotations keep only the known hints; secrets are redacted everywhere. `omitted` counts
 * entries the caller already left out past `maxTools` (see `McpConnection.listTools`). The skipped list names at
 * most {@link MAX_SKIPPED_ENTRIES} tools and sums up the rest; one warning is logged per listing.
 */
export function normalizeListing(
  serverName: string,
  tools: readonly SdkTool[],
  limits: McpListingLimits = DEFAULT_LISTING_LIMITS,
  redactor?: Redactor,
  omitted = 0,
): McpServerListing {
  const kept: McpToolDefinition[] = [];
  const skipped: Array<{ name: string; reason: string }> = [];
  let unnamed = 0;
  let overLimit = omitted;
  const seen = new Set<string>();
  const skip = (name: string, reason: string): void => {
    if (skipped.length >= MAX_SKIPPED_ENTRIES) {
      unnamed++;
      return;
    }
    const safeName = String(name).slice(0, 128);
    skipped.push({ name: redactor ? redactor.text(safeName) : safeName, reason });
  };
  // One instance per listing, dropped with it: checking schemas leaves no compiled code behind.
  const ajv = createServerSchemaAjv();
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
    if (redactor?.leaks(name)) {
      skip(name, 'its name contains a configured secret (it could not be offered or called under its name)');
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
      overLimit++;
      continue;
    }
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
    const safe = redactor
      ? (redactor.json(definition as unknown as JsonObject) as unknown as McpToolDefinition)
      : definition;
    const problem = schemaProblemOf(ajv, safe);
    if (problem) {
      skip(name, problem);
      continue;
    }
    seen.add(name);
    kept.push(safe);
  }
  if (overLimit > 0) {
    skipped.push({
      name: '*',
      reason: `the server lists more than ${limits.maxTools} tools (maxTools): ${overLimit} more left out`,
    });
  }
  if (unnamed > 0) skipped.push({ name: '*', reason: `${unnamed} more tools skipped (not named here)` });
  if (skipped.length > 0) {
    const shown = skipped
      .slice(0, 5)
      .map((entry) => `'${entry.name}' (${entry.reason})`)
      .join('; ');
    const total = skipped.length - (overLimit > 0 ? 1 : 0) - (unnamed > 0 ? 1 : 0) + overLimit + unnamed;
    getGlobalLogger().warn(
      `MCP server '${serverName}': ${total} tools skipped, ${kept.length} kept: ${shown}${skipped.length > 5 ? '; …' : ''}`,
    );
  }
  return { serverName, version: listingVersion(kept), tools: kept, skipped };
}

function schemaProblemOf(ajv: Ajv, tool: McpToolDefinition): string | undefined {
  const input = schemaProblem(ajv, tool.inputSchema);
  if (input) return `its input schema cannot be used: ${input}`;
  const output = tool.outputSchema ? schemaProblem(ajv, tool.outputSchema) : undefined;
  return output ? `its output schema cannot be used: ${output}` : undefined;
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
