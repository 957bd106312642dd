import { searchedNames } from '../protocol/routing.js';
import { DEFAULT_MAX_SEARCH_RESULT_BYTES } from './constants.js';
import { truncateUtf8 } from './tool-text.js';
import type { ToolSearchCandidate, ToolSearchResult, ToolSearchResultItem, ToolSearchSelection } from './types.js';

/** Input of {@link buildToolSearchResult}. */
export interface BuildToolSearchResultInput {
  query: string;
  /** What the strategy picked, best first (untrusted when the strategy is custom). */
  selections: readonly ToolSearchSelection[];
  /** The candidates the strategy was given. */
  candidates: readonly ToolSearchCandidate[];
  topK: number;
  /** Budget of the whole result in UTF-8 bytes of its JSON (default 64 KiB). */
  maxBytes?: number;
}

const encoder = new TextEncoder();
const MAX_NOTE_DESCRIPTION_BYTES = 500;

/** The message a search that matched nothing returns: it tells the model what to do instead. */
export function noMatchMessage(query: string): string {
  return (
    `No tool matches "${query}". Search again with different words that describe the action you need ` +
    `(for example "send an email" or "convert currency"), or answer without a tool.`
  );
}

/**
 * The `searchTools` result: `{ query, selections, tools }` with each tool's description, tags and JSON Schemas.
 * Selections that are not candidates are dropped (a custom strategy could name anything), duplicates are
 * removed, at most `topK` are kept. When nothing is left, `message` says so and both lists are empty — nothing is
 * returned, and so nothing is marked searched. Schemas that would push the result over its byte budget are
 * left out of that tool's entry, with a `note` (the tool can still be called; `callTool` validates its args).
 */
export function buildToolSearchResult(input: BuildToolSearchResultInput): ToolSearchResult {
  const byName = new Map(input.candidates.map((candidate) => [candidate.name, candidate]));
  const seen = new Set<string>();
  const picked: Array<{ selection: ToolSearchSelection; candidate: ToolSearchCandidate }> = [];
  for (const raw of input.selections) {
    const name = typeof raw?.name === 'string' ? raw.name : undefined;
    const candidate = name === undefined ? undefined : byName.get(name);
    if (!candidate || seen.has(candidate.name)) continue;
    seen.add(candidate.name);
    picked.push({ selection: cleanSelection(raw, candidate.name), candidate });
    if (picked.length >= input.topK) break;
  }
  if (picked.length === 0) {
    return { query: input.query, selections: [], tools: [], message: noMatchMessage(input.query) };
  }

  const maxBytes = input.maxBytes ?? DEFAULT_MAX_SEARCH_RESULT_BYTES;
  const selections = picked.map((p) => p.selection);
  const result: ToolSearchResult = { query: input.query, selections, tools: [] };
  let used = bytesOf(result);
  for (const { selection, candidate } of picked) {
    let item = fullItem(candidate, selection);
    let size = bytesOf(item) + 1;
    if (used + size > maxBytes) {
      item = slimItem(candidate, selection, size, bytesOf({ ...result, tools: [] }) + size <= maxBytes);
      size = bytesOf(item) + 1;
    }
    result.tools.push(item);
    used += size;
  }
  return result;
}

/** Names a search result marks as searched: exactly the tools it returned (the durable workflow's rule too). */
export const searchedToolNames: (result: ToolSearchResult) => string[] = searchedNames;

function cleanSelection(raw: ToolSearchSelection, name: string): ToolSearchSelection {
  const selection: ToolSearchSelection = { name };
  if (typeof raw.score === 'number' && Number.isFinite(raw.score)) selection.score = raw.score;
  if (typeof raw.reason === 'string') selection.reason = truncateUtf8(raw.reason, 1_000);
  return selection;
}

function fullItem(candidate: ToolSearchCandidate, selection: ToolSearchSelection): ToolSearchResultItem {
  return {
    name: candidate.name,
    description: candidate.description || null,
    tags: candidate.tags.length > 0 ? [...candidate.tags] : null,
    parametersSchema: candidate.parametersSchema,
    outputSchema: candidate.outputSchema ?? null,
    ...scoreOf(selection),
  };
}

function slimItem(
  candidate: ToolSearchCandidate,
  selection: ToolSearchSelection,
  fullBytes: number,
  fitsAlone: boolean,
): ToolSearchResultItem {
  return {
    name: candidate.name,
    description: candidate.description ? truncateUtf8(candidate.description, MAX_NOTE_DESCRIPTION_BYTES) : null,
    tags: candidate.tags.length > 0 ? candidate.tags.slice(0, 10).map((tag) => truncateUtf8(tag, 50)) : null,
    parametersSchema: null,
    outputSchema: null,
    ...scoreOf(selection),
    note: fitsAlone
      ? `Schemas left out to keep this result small (the entry takes ${fullBytes} bytes). Search with topK 1 for ` +
        `"${candidate.name}" to see them, or call it and follow the validation errors.`
      : `Schemas left out: they take ${fullBytes} bytes, more than a search result may hold. Call the tool and ` +
        `follow the validation errors to get its arguments right.`,
  };
}

function scoreOf(selection: ToolSearchSelection): Pick<ToolSearchResultItem, 'score' | 'reason'> {
  return {
    ...(selection.score !== undefined ? { score: selection.score } : {}),
    ...(selection.reason !== undefined ? { reason: selection.reason } : {}),
  };
}

function bytesOf(value: unknown): number {
  return encoder.encode(JSON.stringify(value)).length;
}
