import { asSchema } from 'ai';
import { convertJsonSchemaToZod } from 'zod-from-json-schema';
import { getGlobalLogger } from '../logger.js';
import { isToolSchema, type StandardResult, type StandardSchemaLike, type ToolSchema } from './schema.js';
import { Tool, type ProviderOptions, type ToolNeedsApprovalFunction, type ToolResultOutput } from './tool.js';

/**
 * A plain AI SDK `tool({...})` object with a `name` added, e.g. `{ ...tool({ inputSchema, execute }), name }`.
 * It is wrapped into a {@link Tool}, so it gets the same validation, hooks and durability as any other tool.
 */
export interface NamedAiSdkTool {
  name: string;
  type?: 'function' | 'dynamic';
  description?: unknown;
  inputSchema: unknown;
  outputSchema?: unknown;
  needsApproval?: boolean | ((input: any, options: any) => boolean | PromiseLike<boolean>);
  providerOptions?: ProviderOptions;
  toModelOutput?: (options: { toolCallId: string; input: any; output: any }) => unknown;
  execute?: (input: any, options: any) => unknown;
}

/** True for an AI SDK function tool (not a provider tool, not one of ours). */
export function isAiSdkTool(value: unknown): value is Omit<NamedAiSdkTool, 'name'> & { name?: unknown } {
  if (typeof value !== 'object' || value === null || !('inputSchema' in value)) return false;
  const type = (value as { type?: unknown }).type;
  return type === undefined || type === 'function' || type === 'dynamic';
}

/**
 * Turns an AI SDK schema into one of ours. Zod and Standard schemas are used as they are; a `jsonSchema()` is
 * converted to Zod so arguments really are validated (the AI SDK would accept anything when it has no
 * `validate`); if that conversion fails, the schema's own validator is used.
 */
export function fromAiSdkSchema(schema: unknown, toolName: string): ToolSchema {
  if (isToolSchema(schema)) return schema;
  const normalized = asSchema(schema as Parameters<typeof asSchema>[0]);
  const json = normalized.jsonSchema;
  const isSync = !(typeof (json as { then?: unknown }).then === 'function');
  if (isSync) {
    try {
      return convertJsonSchemaToZod(json as Parameters<typeof convertJsonSchemaToZod>[0]);
    } catch (error) {
      getGlobalLogger().warn(`Tool '${toolName}': could not convert its JSON Schema to Zod; using its own validator`, {
        error,
      });
    }
  }
  return aiSdkSchemaAdapter(normalized, isSync ? (json as Record<string, unknown>) : {});
}

function aiSdkSchemaAdapter(schema: ReturnType<typeof asSchema>, json: Record<string, unknown>): StandardSchemaLike {
  return {
    '~standard': {
      version: 1,
      vendor: 'ai-sdk',
      validate: async (value: unknown): Promise<StandardResult<unknown>> => {
        if (!schema.validate) return { value };
        const result = await schema.validate(value);
        return result.success ? { value: result.value } : { issues: [{ message: result.error.message }] };
      },
      jsonSchema: { input: () => json },
    },
  };
}

/** Wraps a named AI SDK tool into a {@link Tool}, mapping our execute options onto the AI SDK's. */
export function wrapAiSdkTool(source: NamedAiSdkTool): Tool {
  const { name } = source;
  const description = typeof source.description === 'string' ? source.description : '';
  const run = source.execute;
  const approval = source.needsApproval;
  return new Tool({
    name,
    description,
    parameters: fromAiSdkSchema(source.inputSchema, name),
    outputSchema: source.outputSchema === undefined ? undefined : fromAiSdkSchema(source.outputSchema, name),
    providerOptions: source.providerOptions,
    needsApproval:
      typeof approval === 'function'
        ? (((args, ctx) =>
            approval(args, {
              toolCallId: ctx.toolCallId,
              messages: ctx.messages,
              context: Object.fromEntries(ctx.context),
            })) as ToolNeedsApprovalFunction)
        : approval,
    toModelOutput: source.toModelOutput as
      | ((args: { output: unknown; input: unknown; toolCallId: string }) => ToolResultOutput)
      | undefined,
    execute:
      typeof run === 'function'
        ? (args, options) =>
            run(args, {
              toolCallId: options.toolContext.callId,
              messages: options.toolContext.messages,
              abortSignal: options.abortSignal,
              context: Object.fromEntries(options.context),
            })
        : undefined,
  });
}
