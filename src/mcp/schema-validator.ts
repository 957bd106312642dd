import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  JsonSchemaValidatorResult,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';
import { LRUCache } from 'lru-cache';
import { linearRegExpEngine } from './linear-regexp.js';

/**
 * Compiled schemas a validator keeps (and schemas one Ajv instance compiles before it is replaced): a long-lived
 * connection lists tools again and again, and every listing brings new schema objects.
 */
export const MAX_COMPILED_SCHEMAS = 128;

// ajv-formats is CommonJS; under NodeNext its default import is the module object on some paths.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

/**
 * An Ajv instance for schemas an MCP server sent: every `pattern` and `patternProperties` regex runs on RE2
 * (linear time, see {@link linearRegExpEngine}), never on JavaScript's backtracking engine; formats are
 * ajv-formats' own (fixed, trusted) checks.
 */
export function createServerSchemaAjv(): Ajv {
  const ajv = new Ajv({
    strict: false,
    validateFormats: true,
    validateSchema: false,
    allErrors: false,
    code: { regExp: linearRegExpEngine },
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Why a server's schema cannot be used, or undefined when it compiles with {@link createServerSchemaAjv}. The
 * schema is compiled on `ajv` and removed from it again, so checking a listing leaves nothing behind.
 */
export function schemaProblem(ajv: Ajv, schema: object): string | undefined {
  try {
    ajv.compile(schema);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    try {
      ajv.removeSchema(schema);
    } catch {
      // A schema that failed to compile may not have been added.
    }
  }
}

/**
 * The MCP SDK client's `jsonSchemaValidator` for tool output schemas, replacing its default Ajv one, which runs a
 * server's regexes on the main thread with JavaScript's backtracking engine (`^(a+)+$` froze the worker) and
 * caches every listing's compiled schemas for the life of the connection. This one:
 * - compiles with {@link createServerSchemaAjv} (linear-time regexes);
 * - compiles lazily, on the first result to check: the SDK asks for a validator for every tool of every listing
 *   page, before our bound on the number of tools applies;
 * - keeps at most {@link MAX_COMPILED_SCHEMAS} compiled schemas (by content), and starts a new Ajv instance after
 *   that many compilations, so memory stays bounded on a connection that lives for days;
 * - never throws: a schema that cannot be compiled makes every result of that tool invalid, with the reason (the
 *   listing already skipped such a tool, see `normalizeListing`).
 */
export class LinearJsonSchemaValidator implements jsonSchemaValidator {
  private ajv = createServerSchemaAjv();
  private compiledOnAjv = 0;
  private readonly compiled = new LRUCache<string, ValidateFunction | { problem: string }>({
    max: MAX_COMPILED_SCHEMAS,
  });

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    return (input: unknown): JsonSchemaValidatorResult<T> => {
      const validate = this.compile(schema);
      if ('problem' in validate) {
        return { valid: false, data: undefined, errorMessage: `the output schema cannot be used: ${validate.problem}` };
      }
      if (validate(input)) return { valid: true, data: input as T, errorMessage: undefined };
      return { valid: false, data: undefined, errorMessage: this.ajv.errorsText(validate.errors) };
    };
  }

  /** Compiles `schema` now (or finds it compiled): why it cannot be used, or undefined. */
  problem(schema: JsonSchemaType): string | undefined {
    const compiled = this.compile(schema);
    return 'problem' in compiled ? compiled.problem : undefined;
  }

  /** How many compiled schemas are kept (for tests of the bound). */
  get size(): number {
    return this.compiled.size;
  }

  private compile(schema: JsonSchemaType): ValidateFunction | { problem: string } {
    const key = JSON.stringify(schema);
    const known = this.compiled.get(key);
    if (known) return known;
    if (this.compiledOnAjv >= MAX_COMPILED_SCHEMAS) {
      // Ajv keeps every schema it compiled; dropping the instance is the only way to free them all.
      this.ajv = createServerSchemaAjv();
      this.compiledOnAjv = 0;
    }
    this.compiledOnAjv++;
    let entry: ValidateFunction | { problem: string };
    try {
      // A copy: Ajv caches by object identity, and a schema `$id` seen twice would be refused.
      const { $id: _id, ...rest } = schema as Record<string, unknown>;
      entry = this.ajv.compile(rest);
    } catch (error) {
      entry = { problem: error instanceof Error ? error.message : String(error) };
    }
    this.compiled.set(key, entry);
    return entry;
  }
}
