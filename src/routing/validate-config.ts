import { isToolkit } from '../tool/toolkit.js';
import { isProviderTool, providerToolName } from '../tool/provider-tool.js';
import {
  MAX_EMBEDDING_BATCH_SIZE,
  MAX_TOOL_NAME_LENGTH,
  MAX_TOOL_SEARCH_TOP_K,
  ROUTING_TOOL_NAMES,
} from './constants.js';
import { ToolRoutingConfigError } from './errors/tool-routing-config-error.js';
import type {
  EmbeddingModelObject,
  RunToolRoutingOverride,
  ToolRoutingConfig,
  ToolRoutingEmbeddingInput,
} from './types.js';

const CONFIG_KEYS = ['pool', 'expose', 'embedding', 'topK', 'enforceSearchBeforeCall', 'strategy'];
const EMBEDDING_KEYS = ['model', 'maxBatchSize', 'topK', 'toolText', 'minScore', 'cacheKey', 'lexicalWeight'];
const OVERRIDE_KEYS = ['pool', 'expose', 'embedding', 'topK', 'enforceSearchBeforeCall'];
/** Most tool names a run override may list (client input). */
const MAX_OVERRIDE_NAMES = 10_000;

/**
 * Checks an agent's or router's `toolRouting` and throws {@link ToolRoutingConfigError} naming the field and the
 * fix: `searchTools`/`callTool` in `pool` or `expose` (VoltAgent's message), a `topK` that is not an integer in
 * 1..20, an `embedding` that is neither a `provider/model` string, an embedding model nor `{ model, ... }`, a
 * `strategy` without `select`, unknown keys (usually typos). `false` and `undefined` are valid (no routing).
 */
export function validateToolRoutingConfig(config: unknown): asserts config is ToolRoutingConfig | false | undefined {
  if (config === undefined || config === false) return;
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new ToolRoutingConfigError(
      'toolRouting',
      `toolRouting must be an object such as { topK: 3 } or false, got ${describe(config)}.`,
    );
  }
  const record = config as Record<string, unknown>;
  rejectUnknownKeys(record, CONFIG_KEYS, 'toolRouting');
  checkItems(record.pool, 'pool');
  checkItems(record.expose, 'expose');
  const reserved = [
    ...reservedIn(record.expose).map((name) => ({ name, field: 'expose' })),
    ...reservedIn(record.pool).map((name) => ({ name, field: 'pool' })),
  ];
  if (reserved.length > 0) {
    const names = [...new Set(reserved.map((r) => r.name))].sort().join(', ');
    const fields = [...new Set(reserved.map((r) => `toolRouting.${r.field}`))].join('|');
    throw new ToolRoutingConfigError(
      `toolRouting.${reserved[0]!.field}`,
      `Tool routing reserves tool names ${names}. Remove them from ${fields} or rename the conflicting tools.`,
    );
  }
  checkTopK(record.topK, 'toolRouting.topK');
  checkBoolean(record.enforceSearchBeforeCall, 'toolRouting.enforceSearchBeforeCall');
  if (record.embedding !== undefined) validateEmbeddingInput(record.embedding);
  if (record.strategy !== undefined) {
    const select = (record.strategy as { select?: unknown } | null)?.select;
    if (typeof select !== 'function') {
      throw new ToolRoutingConfigError(
        'toolRouting.strategy',
        'toolRouting.strategy must be an object with a select({ query, tools, topK, context }) method.',
      );
    }
  }
}

/** Checks `toolRouting.embedding`: a `provider/model` string, an AI SDK embedding model, or `{ model, ... }`. */
export function validateEmbeddingInput(input: unknown): asserts input is ToolRoutingEmbeddingInput {
  const field = 'toolRouting.embedding';
  if (typeof input === 'string') return checkModelString(input, field);
  if (isEmbeddingModelObject(input)) return;
  if (typeof input !== 'object' || input === null || !('model' in input)) {
    throw new ToolRoutingConfigError(
      field,
      `${field} must be an embedding model, a 'provider/model' string such as 'openai/text-embedding-3-small', ` +
        `or { model, maxBatchSize?, topK?, toolText?, minScore?, lexicalWeight? }; got ${describe(input)}.`,
    );
  }
  const record = input as Record<string, unknown>;
  rejectUnknownKeys(record, EMBEDDING_KEYS, field);
  if (typeof record.model === 'string') checkModelString(record.model, `${field}.model`);
  else if (!isEmbeddingModelObject(record.model)) {
    throw new ToolRoutingConfigError(
      `${field}.model`,
      `${field}.model must be an AI SDK embedding model or a 'provider/model' string; got ${describe(record.model)}.`,
    );
  }
  if (record.maxBatchSize !== undefined) {
    const size = record.maxBatchSize;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > MAX_EMBEDDING_BATCH_SIZE) {
      throw new ToolRoutingConfigError(
        `${field}.maxBatchSize`,
        `${field}.maxBatchSize must be an integer from 1 to ${MAX_EMBEDDING_BATCH_SIZE}; got ${describe(size)}.`,
      );
    }
  }
  checkTopK(record.topK, `${field}.topK`);
  if (record.toolText !== undefined && typeof record.toolText !== 'function') {
    throw new ToolRoutingConfigError(
      `${field}.toolText`,
      `${field}.toolText must be a function (candidate) => string.`,
    );
  }
  if (record.minScore !== undefined) {
    const score = record.minScore;
    if (typeof score !== 'number' || !Number.isFinite(score) || score < -1 || score >= 1) {
      throw new ToolRoutingConfigError(
        `${field}.minScore`,
        `${field}.minScore must be a cosine similarity from -1 up to (not including) 1; got ${describe(score)}.`,
      );
    }
  }
  if (record.lexicalWeight !== undefined) {
    const weight = record.lexicalWeight;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || weight > 1) {
      throw new ToolRoutingConfigError(
        `${field}.lexicalWeight`,
        `${field}.lexicalWeight must be a number from 0 (cosine similarity alone) to 1; got ${describe(weight)}.`,
      );
    }
  }
  if (record.cacheKey !== undefined && (typeof record.cacheKey !== 'string' || record.cacheKey === '')) {
    throw new ToolRoutingConfigError(`${field}.cacheKey`, `${field}.cacheKey must be a non-empty string.`);
  }
}

/**
 * Checks a run's routing override (client input, plain JSON): `true`, `false`, or `{ pool?, expose?: tool names,
 * embedding?: 'provider/model', topK?, enforceSearchBeforeCall? }`, with bounded name lists.
 */
export function validateRunToolRoutingOverride(override: unknown): asserts override is RunToolRoutingOverride {
  if (typeof override === 'boolean') return;
  if (typeof override !== 'object' || override === null || Array.isArray(override)) {
    throw new ToolRoutingConfigError(
      'toolRouting',
      `A run's toolRouting must be true, false or { pool?, expose?, embedding?, topK?, enforceSearchBeforeCall? }; ` +
        `got ${describe(override)}.`,
    );
  }
  const record = override as Record<string, unknown>;
  rejectUnknownKeys(record, OVERRIDE_KEYS, 'toolRouting');
  for (const field of ['pool', 'expose'] as const) {
    const names = record[field];
    if (names === undefined) continue;
    if (
      !Array.isArray(names) ||
      names.length > MAX_OVERRIDE_NAMES ||
      !names.every((n) => typeof n === 'string' && n.length > 0 && n.length <= MAX_TOOL_NAME_LENGTH)
    ) {
      throw new ToolRoutingConfigError(
        `toolRouting.${field}`,
        `A run's toolRouting.${field} must be an array of at most ${MAX_OVERRIDE_NAMES} tool names ` +
          `(non-empty strings of at most ${MAX_TOOL_NAME_LENGTH} characters).`,
      );
    }
    const reserved = names.filter((n: string) => ROUTING_TOOL_NAMES.includes(n));
    if (reserved.length > 0) {
      throw new ToolRoutingConfigError(
        `toolRouting.${field}`,
        `Tool routing reserves tool names ${[...new Set(reserved)].sort().join(', ')}. ` +
          `Remove them from toolRouting.${field}.`,
      );
    }
  }
  if (record.embedding !== undefined) {
    if (typeof record.embedding !== 'string') {
      throw new ToolRoutingConfigError(
        'toolRouting.embedding',
        `A run's toolRouting.embedding must be a 'provider/model' string (model objects stay on the worker).`,
      );
    }
    checkModelString(record.embedding, 'toolRouting.embedding');
  }
  checkTopK(record.topK, 'toolRouting.topK');
  checkBoolean(record.enforceSearchBeforeCall, 'toolRouting.enforceSearchBeforeCall');
}

/** True for an AI SDK embedding model object (any spec version): it has `doEmbed`. */
export function isEmbeddingModelObject(value: unknown): value is EmbeddingModelObject {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { doEmbed?: unknown }).doEmbed === 'function' &&
    typeof (value as { modelId?: unknown }).modelId === 'string'
  );
}

/** Names of the routing built-ins among tool items (toolkit tools included). */
function reservedIn(items: unknown): string[] {
  if (!Array.isArray(items)) return [];
  const names: string[] = [];
  for (const item of items) {
    const inner = isToolkit(item) ? (item as { tools: unknown[] }).tools : [item];
    for (const tool of inner) {
      const name = isProviderTool(tool) ? providerToolName(tool) : (tool as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && ROUTING_TOOL_NAMES.includes(name)) names.push(name);
    }
  }
  return names;
}

function checkItems(items: unknown, field: 'pool' | 'expose'): void {
  if (items !== undefined && !Array.isArray(items)) {
    throw new ToolRoutingConfigError(
      `toolRouting.${field}`,
      `toolRouting.${field} must be an array of tools and toolkits; got ${describe(items)}.`,
    );
  }
}

function checkTopK(value: unknown, field: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_TOOL_SEARCH_TOP_K) {
    throw new ToolRoutingConfigError(
      field,
      `${field} must be an integer from 1 to ${MAX_TOOL_SEARCH_TOP_K}; got ${describe(value)}.`,
    );
  }
}

function checkBoolean(value: unknown, field: string): void {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new ToolRoutingConfigError(field, `${field} must be true or false; got ${describe(value)}.`);
  }
}

function checkModelString(value: string, field: string): void {
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) {
    throw new ToolRoutingConfigError(
      field,
      `${field} '${value}' is not a 'provider/model' string such as 'openai/text-embedding-3-small' or ` +
        `'offline/hashed-bow'.`,
    );
  }
}

function rejectUnknownKeys(record: Record<string, unknown>, known: readonly string[], field: string): void {
  const unknown = Object.keys(record).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new ToolRoutingConfigError(
      field,
      `Unknown ${field} option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}. ` +
        `Known options: ${known.join(', ')}.`,
    );
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `'${value.length > 60 ? `${value.slice(0, 60)}…` : value}'`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'function') return 'a function';
  return `${typeof value} ${String(value as string | number | boolean | bigint | symbol | undefined)}`;
}
