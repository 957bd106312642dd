// The fields an MCP elicitation asks for, read from its requested schema (MCP's flat JSON Schema subset: strings,
// numbers, booleans, single- and multi-select enums). The schema comes from an MCP server through the run, so it is
// read defensively: a keyword of the wrong type is ignored, a field of a type the runtime cannot check is marked
// `unsupported` rather than guessed at. Values stay raw here; whoever prints them makes them terminal-safe.
import type { JsonObject, JsonValue } from '../protocol/index.js';

/** How a field is answered: free text, a number, yes/no, one option, or a list of options. */
export type ElicitationFieldKind = 'text' | 'number' | 'integer' | 'boolean' | 'choice' | 'choices' | 'unsupported';

/** An option of a `choice` or `choices` field: the value sent, and the label the server gave it, if any. */
export interface ElicitationOption {
  value: string;
  label?: string;
}

/** One field of an elicitation, as the CLI shows and asks it. */
export interface ElicitationField {
  /** The property name: the key of the answer's content. */
  name: string;
  kind: ElicitationFieldKind;
  /** The schema's `type` as given (what an `unsupported` field declared). */
  type: JsonValue | undefined;
  title?: string;
  description?: string;
  required: boolean;
  /** The schema's default: the answer takes it when the field is left out. */
  default?: JsonValue;
  /** Options of a `choice` or `choices` field, in the server's order. */
  options?: ElicitationOption[];
  /** `string` format: `email`, `uri`, `date` or `date-time`. */
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
}

/** The fields of a requested schema, in the server's order; none when the schema is not an object of properties. */
export function elicitationFields(schema: JsonValue | undefined): ElicitationField[] {
  const root = objectOf(schema);
  const properties = objectOf(root?.properties);
  if (!properties) return [];
  const required = new Set(
    Array.isArray(root?.required) ? root.required.filter((name) => typeof name === 'string') : [],
  );
  return Object.entries(properties).map(([name, value]) => fieldOf(name, objectOf(value) ?? {}, required.has(name)));
}

/** The property schema of one field, as a one-field requested schema (to check a single answer on its own). */
export function singleFieldSchema(schema: JsonValue | undefined, name: string): JsonObject {
  const property = objectOf(objectOf(objectOf(schema)?.properties)?.[name]) ?? {};
  return { type: 'object', properties: { [name]: property } };
}

function fieldOf(name: string, schema: JsonObject, required: boolean): ElicitationField {
  const field: ElicitationField = { name, kind: 'unsupported', type: schema.type, required };
  const title = text(schema.title);
  const description = text(schema.description);
  if (title !== undefined) field.title = title;
  if (description !== undefined) field.description = description;
  if (schema.default !== undefined) field.default = schema.default;

  // The runtime's check reads an untyped property with an `enum` as a string; `oneOf` needs `type: 'string'`.
  const single = singleOptions(schema);
  if (single && (schema.type === 'string' || (schema.type === undefined && Array.isArray(schema.enum)))) {
    return { ...field, kind: 'choice', options: single };
  }
  switch (schema.type) {
    case 'string':
      return {
        ...field,
        kind: 'text',
        ...numberKeyword('minLength', schema.minLength),
        ...numberKeyword('maxLength', schema.maxLength),
        ...(text(schema.format) !== undefined ? { format: text(schema.format)! } : {}),
      };
    case 'number':
    case 'integer':
      return {
        ...field,
        kind: schema.type,
        ...numberKeyword('minimum', schema.minimum),
        ...numberKeyword('maximum', schema.maximum),
      };
    case 'boolean':
      return { ...field, kind: 'boolean' };
    case 'array': {
      const options = multiOptions(objectOf(schema.items));
      if (!options) return field;
      return {
        ...field,
        kind: 'choices',
        options,
        ...numberKeyword('minItems', schema.minItems),
        ...numberKeyword('maxItems', schema.maxItems),
      };
    }
    default:
      return field;
  }
}

/** `enum` (with the legacy `enumNames` as labels) or `oneOf: [{ const, title }]`. */
function singleOptions(schema: JsonObject): ElicitationOption[] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.flatMap((value, i) => (typeof value === 'string' ? [withLabel(value, text(names[i]))] : []));
  }
  return titledOptions(schema.oneOf);
}

/** `items.enum` or `items.anyOf: [{ const, title }]`. */
function multiOptions(items: JsonObject | undefined): ElicitationOption[] | undefined {
  if (!items) return undefined;
  if (Array.isArray(items.enum)) {
    return items.enum.flatMap((value) => (typeof value === 'string' ? [{ value }] : []));
  }
  return titledOptions(items.anyOf);
}

function titledOptions(list: JsonValue | undefined): ElicitationOption[] | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.flatMap((entry) => {
    const option = objectOf(entry);
    return typeof option?.const === 'string' ? [withLabel(option.const, text(option.title))] : [];
  });
}

function withLabel(value: string, label: string | undefined): ElicitationOption {
  return label !== undefined && label !== value ? { value, label } : { value };
}

function numberKeyword<K extends string>(key: K, value: JsonValue | undefined): { [P in K]?: number } {
  return (typeof value === 'number' && Number.isFinite(value) ? { [key]: value } : {}) as { [P in K]?: number };
}

function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function objectOf(value: JsonValue | undefined): JsonObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}
