import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { withUserAgentSuffix } from '@ai-sdk/provider-utils';
import { jsonSchema, tool, type Tool, type ToolSet } from 'ai';
import {
  convertToLanguageModelPrompt,
  prepareLanguageModelCallOptions,
  prepareToolChoice,
  prepareTools,
  standardizePrompt,
} from 'ai/internal';
import aiPackage from 'ai/package.json' with { type: 'json' };
import type { CallModelOptions, ToolSpec } from './call-model.js';

/** What one provider call needs: the options for `doGenerate`/`doStream` and the tool set to parse calls against. */
export interface ProviderCall {
  callOptions: LanguageModelV4CallOptions;
  tools: ToolSet;
  /** Whether the SDK's tool-choice check applies ('auto' lets the model do anything). */
  toolChoice: LanguageModelV4CallOptions['toolChoice'];
}

// The same `ai/<version>` user-agent suffix `generateText` adds, so providers see the same client.
const USER_AGENT_SUFFIX = `ai/${aiPackage.version}`;

/**
 * The provider call options `generateText` would build for one step, from the AI SDK's own parts: the prompt
 * standardized and converted for this provider (system messages inside the transcript allowed), tools and tool
 * choice prepared, settings validated, and the user-agent suffix on the headers.
 */
export async function providerCallOptions(model: LanguageModelV4, options: CallModelOptions): Promise<ProviderCall> {
  const tools = buildToolSet(options.tools ?? []);
  const prompt = await standardizePrompt({
    instructions: options.system,
    messages: options.messages,
    allowSystemInMessages: true,
  });
  const [promptMessages, providerTools] = await Promise.all([
    convertToLanguageModelPrompt({
      prompt,
      supportedUrls: await model.supportedUrls,
      download: undefined,
      abortSignal: options.abortSignal,
      provider: model.provider.split('.')[0] ?? model.provider,
    }),
    prepareTools({ tools }),
  ]);
  const toolChoice = prepareToolChoice({ toolChoice: options.toolChoice });
  const settings = prepareLanguageModelCallOptions({
    maxOutputTokens: options.maxOutputTokens,
    temperature: options.temperature,
  });
  return {
    tools,
    toolChoice,
    callOptions: {
      ...settings,
      tools: providerTools,
      toolChoice,
      prompt: promptMessages,
      providerOptions: options.providerOptions,
      abortSignal: options.abortSignal,
      headers: withUserAgentSuffix(options.headers ?? {}, USER_AGENT_SUFFIX),
    },
  };
}

/**
 * The AI SDK tool set for one call. Built with `Object.fromEntries` so a tool named `__proto__` is an own key, not
 * a prototype change. Function tools get a JSON Schema without a validator: the SDK must not reject or repair
 * arguments, the runtime validates them against the real Zod schema.
 */
export function buildToolSet(specs: ToolSpec[]): ToolSet {
  return Object.fromEntries(
    specs.map((spec): [string, Tool] =>
      spec.kind === 'provider'
        ? [spec.name, spec.providerTool as Tool]
        : [
            spec.name,
            tool({
              description: spec.description,
              inputSchema: jsonSchema(spec.inputSchema),
              ...(spec.providerOptions ? { providerOptions: spec.providerOptions } : {}),
            }),
          ],
    ),
  );
}
