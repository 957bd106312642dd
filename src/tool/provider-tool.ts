/**
 * A tool defined and executed by the model provider, e.g. `openai.tools.webSearch()`. It is handed to the model
 * unchanged and never executed by this library. Give it a `name` (the name the model uses); without one, the part
 * of its `id` after the provider prefix is used.
 */
export interface ProviderTool {
  type: 'provider';
  /** `<provider>.<tool>`, e.g. `openai.web_search`. */
  id: string;
  name: string;
  /** Provider-specific configuration of the tool. */
  args: Record<string, unknown>;
  inputSchema?: unknown;
  /** The AI SDK's approval policy shape (`(input, { toolCallId, messages, context })`). */
  needsApproval?: boolean | ((input: any, options: any) => boolean | PromiseLike<boolean>);
  [key: string]: unknown;
}

/** True for a provider-defined tool (checked by its `type` discriminator, as the AI SDK does). */
export function isProviderTool(value: unknown): value is ProviderTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'provider' &&
    typeof (value as { id?: unknown }).id === 'string'
  );
}

/** The name a provider tool is registered under: its own `name`, else its `id` without the provider prefix. */
export function providerToolName(value: { id: string; name?: unknown }): string {
  if (typeof value.name === 'string' && value.name) return value.name;
  const dot = value.id.indexOf('.');
  return dot >= 0 ? value.id.slice(dot + 1) : value.id;
}
