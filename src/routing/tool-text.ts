import type { JsonObject, JsonValue } from '../protocol/json.js';
import { MAX_TOOL_TEXT_BYTES } from './constants.js';
import type { ToolSearchCandidate, ToolTextFunction } from './types.js';

/**
 * The text that stands for a tool in embedding search: its name with the words split out (`get_weather` →
 * `get weather`), then its description. Measured on the labelled set in test/fixtures/routing with
 * all-MiniLM-L6-v2, adding tags or parameter descriptions did not help (tags cost 3 points of recall@3) and JSON
 * Schema text (VoltAgent's default) cost 3 points: schema syntax is the same in every tool and only blurs the
 * vectors. Pass `toolText` to change it.
 */
export function defaultToolText(candidate: ToolSearchCandidate): string {
  const words = splitName(candidate.name);
  return candidate.description ? `${words}: ${candidate.description}` : words;
}

/**
 * The tool text a strategy embeds: the custom function's or the default, cut to {@link MAX_TOOL_TEXT_BYTES} UTF-8
 * bytes (tool descriptions may come from MCP servers, which we do not trust to keep them short). A custom
 * function that throws or returns a non-string is a configuration error worth failing loudly for.
 */
export function toolTextOf(candidate: ToolSearchCandidate, custom?: ToolTextFunction): string {
  const text = custom ? custom(candidate) : defaultToolText(candidate);
  if (typeof text !== 'string') {
    throw new TypeError(
      `toolRouting.embedding.toolText returned ${typeof text} for tool '${candidate.name}'; return a string.`,
    );
  }
  return truncateUtf8(text, MAX_TOOL_TEXT_BYTES);
}

/** `get_weather`, `getWeather`, `get-weather` → `get weather`. */
export function splitName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .toLowerCase();
}

/** `city: City name; days: Number of days` from an object schema's properties (top level only). */
export function describeParameters(schema: JsonObject): string {
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return '';
  return Object.entries(properties)
    .map(([name, property]) => {
      const description = descriptionOf(property);
      return description ? `${name}: ${description}` : name;
    })
    .join('; ');
}

function descriptionOf(property: JsonValue | undefined): string {
  if (typeof property !== 'object' || property === null || Array.isArray(property)) return '';
  return typeof property.description === 'string' ? property.description : '';
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  // A cut inside a multi-byte character leaves a broken tail that the decoder turns into U+FFFD: drop it.
  return decoder.decode(bytes.subarray(0, maxBytes)).replace(/\uFFFD+$/u, '');
}
