import type { JSONSchema7, JSONSchema7Definition } from '@ai-sdk/provider';
import { contentWords, splitWords } from './words.js';

// Synthesizes tool arguments from a JSON Schema and a user's sentence, for the offline demo model. The goal is a
// plausible, schema-valid call that a newcomer recognises ("weather in Paris" → { city: "Paris" }), not language
// understanding: strings come from the message, numbers from the message in order or from defaults.

/** What argument synthesis reads from the request. */
export interface ArgumentSource {
  /** The user's message. */
  message: string;
  /** Words of the tool's name and description, left out when picking a free-text value. */
  toolWords: string[];
  /**
   * The earlier answer the message refers back to ("email that forecast"): its request and what its tools returned.
   * Strings the message itself does not give (a subject, a body) come from it.
   */
  earlier?: { request: string; answer: string };
}

const FREE_TEXT_KEYS = /^(q|query|text|input|prompt|question|message|content|search|term|terms|topic|request|task)$/i;
const PLACE_KEYS = /(city|location|place|country|region|destination|town|address)/i;
const NAME_KEYS = /(name|person|user|who|recipient|author|^to$|assignee|owner)/i;
const ADDRESS_KEYS = /(^to$|^cc$|^bcc$|email|recipient|address)/i;
const TITLE_KEYS = /(subject|title|heading)/i;

/** Builds arguments for `schema` (normally an object schema) from the message. */
export function synthesizeArguments(schema: JSONSchema7, source: ArgumentSource): unknown {
  const numbers = [...source.message.matchAll(/-?\d+(?:\.\d+)?/g)].map((match) => Number(match[0]));
  return valueFor(schema, '', source, { numbers, depth: 0 });
}

interface State {
  numbers: number[];
  depth: number;
}

function valueFor(definition: JSONSchema7Definition, key: string, source: ArgumentSource, state: State): unknown {
  if (typeof definition === 'boolean') return stringFor(key, source);
  const schema = definition;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum && schema.enum.length > 0) return pickEnum(schema.enum, source.message);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) {
    const usable = alternatives.find((alt) => typeof alt !== 'object' || alt.type !== 'null') ?? alternatives[0];
    if (usable !== undefined) return valueFor(usable, key, source, state);
  }
  if (schema.allOf && schema.allOf.length > 0 && schema.allOf[0] !== undefined) {
    return valueFor(schema.allOf[0], key, source, state);
  }

  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type ?? (schema.properties ? 'object' : 'string')) {
    case 'object':
      return objectFor(schema, source, state);
    case 'array':
      return arrayFor(schema, key, source, state);
    case 'number':
      return numberFor(schema, state, false);
    case 'integer':
      return numberFor(schema, state, true);
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return clampString(schema, stringFor(key, source));
  }
}

function objectFor(schema: JSONSchema7, source: ArgumentSource, state: State): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  // Deeply nested schemas get empty objects: the demo needs a recognisable call, not a complete document.
  if (state.depth > 3) return result;
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? Object.keys(properties));
  for (const [key, property] of Object.entries(properties)) {
    const hasDefault = typeof property === 'object' && property.default !== undefined;
    if (!required.has(key) && !hasDefault) continue;
    // defineProperty rather than assignment: a schema property named `__proto__` must stay a plain key.
    Object.defineProperty(result, key, {
      value: valueFor(property, key, source, { ...state, depth: state.depth + 1 }),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return result;
}

function arrayFor(schema: JSONSchema7, key: string, source: ArgumentSource, state: State): unknown[] {
  const min = schema.minItems ?? 0;
  const items = Array.isArray(schema.items) ? schema.items[0] : schema.items;
  if (min === 0 || items === undefined) return [];
  return Array.from({ length: min }, () => valueFor(items, key, source, { ...state, depth: state.depth + 1 }));
}

function numberFor(schema: JSONSchema7, state: State, integer: boolean): number {
  const floor = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined;
  let value = state.numbers.shift() ?? schema.minimum ?? floor ?? 1;
  if (schema.minimum !== undefined && value < schema.minimum) value = schema.minimum;
  if (schema.maximum !== undefined && value > schema.maximum) value = schema.maximum;
  return integer ? Math.round(value) : value;
}

function pickEnum(values: readonly unknown[], message: string): unknown {
  const words = new Set(splitWords(message));
  return values.find((value) => typeof value === 'string' && words.has(value.toLowerCase())) ?? values[0];
}

function stringFor(key: string, source: ArgumentSource): string {
  const message = source.message.trim();
  const quoted = /["“']([^"”']{2,})["”']/.exec(message)?.[1];
  if (FREE_TEXT_KEYS.test(key)) return quoted ?? message;
  // Bounded repeats (an address's own limits): unbounded ones make a long word without "@" take quadratic time.
  const email = /[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}/.exec(message)?.[0];
  if (email && ADDRESS_KEYS.test(key)) return email;
  if (PLACE_KEYS.test(key))
    return placeIn(message) ?? properNouns(message) ?? quoted ?? leftoverWords(source) ?? message;
  if (NAME_KEYS.test(key)) return properNouns(message) ?? quoted ?? leftoverWords(source) ?? message;
  const { earlier } = source;
  if (earlier) return TITLE_KEYS.test(key) ? (quoted ?? `Re: ${earlier.request}`) : earlier.answer;
  return quoted ?? leftoverWords(source) ?? message;
}

/** Capitalised words after "in", "at", "for", "to" or "from": "weather in New York" → "New York". */
function placeIn(message: string): string | undefined {
  return /\b(?:in|at|for|to|from|near)\s+((?:\p{Lu}[\p{L}\-']*\s?)+)/u.exec(message)?.[1]?.trim();
}

/** Capitalised words that do not start the sentence. */
function properNouns(message: string): string | undefined {
  const words = message.split(/\s+/).slice(1);
  const nouns = words.filter((word) => /^\p{Lu}/u.test(word)).map((word) => word.replace(/[^\p{L}\p{N}\-']/gu, ''));
  return nouns.length > 0 ? nouns.join(' ') : undefined;
}

/** The message's meaningful words that are not the tool's own words: "weather in paris" for get_weather → "paris". */
function leftoverWords(source: ArgumentSource): string | undefined {
  const toolWords = new Set(source.toolWords);
  const leftovers = source.message
    .split(/\s+/)
    .map((word) => word.replace(/[^\p{L}\p{N}\-']/gu, ''))
    .filter((word) => {
      const content = contentWords(word);
      return content.length > 0 && content.every((w) => !toolWords.has(w));
    });
  return leftovers.length > 0 ? leftovers.join(' ') : undefined;
}

function clampString(schema: JSONSchema7, value: string): string {
  let result = value;
  if (schema.maxLength !== undefined && result.length > schema.maxLength) result = result.slice(0, schema.maxLength);
  if (schema.minLength !== undefined && result.length < schema.minLength) result = result.padEnd(schema.minLength, '?');
  return result;
}
