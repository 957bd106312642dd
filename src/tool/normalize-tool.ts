import { getGlobalLogger } from '../logger.js';
import { isAiSdkTool, wrapAiSdkTool, type NamedAiSdkTool } from './ai-sdk-tool.js';
import { isProviderTool, providerToolName, type ProviderTool } from './provider-tool.js';
import { isUserDefinedTool, type AnyTool } from './tool.js';

/** A tool as a manager stores it: ours, or a provider tool passed through. */
export type RegisteredTool = AnyTool | ProviderTool;

/**
 * Brings one item into its registered form: our tools as they are, provider tools unchanged (with a derived
 * `name` if they have none), named AI SDK tools wrapped. Anything else is logged and skipped (`undefined`) —
 * never silently dropped.
 */
export function normalizeTool(item: unknown, where: string): RegisteredTool | undefined {
  if (isUserDefinedTool(item)) return item;
  if (isProviderTool(item)) {
    const name = providerToolName(item);
    // Keep the caller's object when it is already named, so it reaches the model exactly as given.
    return item.name === name ? item : { ...item, name };
  }
  if (isAiSdkTool(item)) {
    if (typeof item.name !== 'string' || !item.name) {
      getGlobalLogger().warn(`Skipping AI SDK tool without a name in ${where}; give it a 'name' property`, item);
      return undefined;
    }
    try {
      return wrapAiSdkTool(item as NamedAiSdkTool);
    } catch (error) {
      getGlobalLogger().error(`Could not wrap AI SDK tool '${item.name}' in ${where}`, { error });
      return undefined;
    }
  }
  getGlobalLogger().error(`Skipping unsupported tool type in ${where}`, item);
  return undefined;
}
