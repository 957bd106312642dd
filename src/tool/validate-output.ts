import { validateSchema } from './schema.js';
import type { AnyTool } from './tool.js';

/**
 * Validates a result against the tool's `outputSchema` and returns the parsed value (defaults applied, unknown
 * keys stripped). Without a schema the value passes unchanged. A failure throws an `Error` whose message is
 * `Output validation failed: <zod message>` and whose own properties `validationErrors` and `actualOutput` end
 * up in the payload the model sees.
 */
export async function validateToolOutput(tool: AnyTool, output: unknown): Promise<unknown> {
  if (!tool.outputSchema) return output;
  const check = await validateSchema(tool.outputSchema, output);
  if (check.success) return check.value;
  const error = new Error(`Output validation failed: ${check.rawMessage}`);
  Object.assign(error, { validationErrors: check.issues, actualOutput: output });
  throw error;
}
