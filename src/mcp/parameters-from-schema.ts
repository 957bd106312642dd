import type { z } from 'zod';
import { convertJsonSchemaToZod } from 'zod-from-json-schema';
import type { JsonObject, JsonValue } from '../protocol/json.js';
import { LinearJsonSchemaValidator } from './schema-validator.js';

// Keywords whose value is a map of subschemas, and those whose value is one subschema or a list of them.
const SCHEMA_MAPS = ['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'];
const SUBSCHEMAS = [
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'allOf',
  'anyOf',
  'oneOf',
];

/** Validates model-written arguments against server schemas with regexes (shared, bounded, linear-time). */
const patternChecks = new LinearJsonSchemaValidator();

/**
 * The zod parameters of an MCP tool, from the input schema its server sent. `zod-from-json-schema` would run the
 * schema's `pattern` and `patternProperties` regexes on the model's arguments with JavaScript's backtracking
 * engine (`^(a+)+$` against `aaaa…!` blocks the event loop for minutes), so they are taken out of the schema it
 * converts, and the arguments are checked against the whole original schema by {@link LinearJsonSchemaValidator}
 * (RE2, linear time) in a refinement. Throws when the schema cannot be converted.
 */
export function parametersFromServerSchema(inputSchema: JsonObject): z.ZodType {
  const { schema, changed } = withoutPatterns(inputSchema);
  const parameters = convertJsonSchemaToZod(schema as never) as unknown as z.ZodType;
  if (!changed) return parameters;
  const problem = patternChecks.problem(inputSchema as never);
  if (problem) throw new Error(problem);
  const validate = patternChecks.getValidator(inputSchema as never);
  return parameters.superRefine((value, ctx) => {
    const result = validate(value);
    if (!result.valid) ctx.addIssue({ code: 'custom', message: result.errorMessage });
  });
}

/**
 * A copy of a schema without regexes: `pattern` dropped; `patternProperties` dropped together with the
 * `additionalProperties` it qualifies (what stays is looser; the refinement enforces the original).
 */
export function withoutPatterns(schema: JsonValue): { schema: JsonValue; changed: boolean } {
  let changed = false;
  const walk = (node: JsonValue): JsonValue => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'pattern' && typeof value === 'string') {
        changed = true;
        continue;
      }
      if (key === 'patternProperties' && value && typeof value === 'object') {
        changed = true;
        continue;
      }
      if (SCHEMA_MAPS.includes(key) && value && typeof value === 'object' && !Array.isArray(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, walk(sub)]));
      } else if (SUBSCHEMAS.includes(key)) {
        out[key] = walk(value);
      } else {
        out[key] = value;
      }
    }
    if ('patternProperties' in node && typeof node.patternProperties === 'object') delete out.additionalProperties;
    return out;
  };
  return { schema: walk(schema), changed };
}
