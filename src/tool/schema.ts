import { z } from 'zod';
import type { JsonObject } from '../protocol/json.js';
import { getGlobalLogger } from '../logger.js';

/** One problem reported by a Standard Schema validator. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** Result of a Standard Schema validation. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/**
 * The part of Standard Schema v1 (https://standardschema.dev) we rely on. Zod 4, Valibot, ArkType and AI SDK
 * schemas wrapped by this library all fit it; the optional `jsonSchema` converter is what lets us describe the
 * schema to the model.
 */
export interface StandardSchemaLike<Output = unknown, Input = unknown> {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: { readonly input: (options: { readonly target: string }) => Record<string, unknown> };
  };
}

/** A schema a tool can declare for its parameters or output: Zod 4 (preferred) or any Standard Schema. */
export type ToolSchema = z.ZodType | StandardSchemaLike<any, any>;

/** The value a schema produces after parsing (defaults applied, transforms run). */
export type InferSchemaOutput<S> = S extends z.ZodType
  ? z.output<S>
  : S extends StandardSchemaLike<infer O, any>
    ? O
    : unknown;

/** The value a schema accepts before parsing. */
export type InferSchemaInput<S> = S extends z.ZodType
  ? z.input<S>
  : S extends StandardSchemaLike<any, infer I>
    ? I
    : unknown;

/** Outcome of validating a value against a {@link ToolSchema}. */
export type SchemaCheck<T = unknown> =
  | { success: true; value: T }
  | {
      success: false;
      /** A readable, multi-line description of every issue. */
      message: string;
      /** The validator's own message (for Zod, the JSON list of issues). */
      rawMessage: string;
      /** The raw issues, kept as data for error payloads. */
      issues: readonly unknown[];
    };

/** True for a Zod 4 schema (Zod 3 schemas are handled through their Standard Schema interface instead). */
export function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

/** True for anything usable as a {@link ToolSchema}. */
export function isToolSchema(value: unknown): value is ToolSchema {
  if (isZodSchema(value)) return true;
  const standard = (value as { '~standard'?: { validate?: unknown } } | null | undefined)?.['~standard'];
  return typeof standard?.validate === 'function';
}

function formatStandardIssues(issues: ReadonlyArray<StandardIssue>): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
      return path ? `✖ ${issue.message}\n  → at ${path}` : `✖ ${issue.message}`;
    })
    .join('\n');
}

function fromZod<T>(result: z.ZodSafeParseResult<T>): SchemaCheck<T> {
  if (result.success) return { success: true, value: result.data };
  return {
    success: false,
    message: z.prettifyError(result.error),
    rawMessage: result.error.message,
    issues: result.error.issues,
  };
}

function fromStandard<T>(result: StandardResult<T>): SchemaCheck<T> {
  if (result.issues === undefined) return { success: true, value: result.value };
  const message = formatStandardIssues(result.issues);
  return { success: false, message, rawMessage: message, issues: result.issues };
}

/** Validates a value, allowing async refinements and async validators. */
export async function validateSchema<T = unknown>(schema: ToolSchema, value: unknown): Promise<SchemaCheck<T>> {
  if (isZodSchema(schema)) return fromZod((await schema.safeParseAsync(value)) as z.ZodSafeParseResult<T>);
  return fromStandard((await schema['~standard'].validate(value)) as StandardResult<T>);
}

/**
 * The JSON Schema of a tool schema, for the model and for workflow history. Parameters are described as the
 * model must write them (`io: 'input'`: fields with defaults are optional); outputs as the tool returns them.
 * A schema that cannot be described becomes `{}` ("any value") with a warning, rather than failing the agent.
 */
export function toJsonSchema(schema: ToolSchema, io: 'input' | 'output' = 'input'): JsonObject {
  // Schemas do not change: convert each once (every model call of a durable run offers its tools again), and hand
  // out copies, which callers may change.
  let json = converted[io].get(schema);
  if (!json) converted[io].set(schema, (json = convert(schema, io)));
  return structuredClone(json);
}

/** JSON Schemas already converted, by schema object. */
const converted = { input: new WeakMap<object, JsonObject>(), output: new WeakMap<object, JsonObject>() };

function convert(schema: ToolSchema, io: 'input' | 'output'): JsonObject {
  try {
    if (isZodSchema(schema)) {
      return z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as JsonObject;
    }
    const converter = schema['~standard'].jsonSchema;
    if (converter) return converter.input({ target: 'draft-07' }) as JsonObject;
  } catch (error) {
    getGlobalLogger().warn('Could not convert a tool schema to JSON Schema; describing it as any value', { error });
    return {};
  }
  getGlobalLogger().warn('A tool schema has no JSON Schema converter; describing it as any value');
  return {};
}
