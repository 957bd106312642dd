// The AI SDK's own telemetry for one model call, wired to durable-agent's tracer: the traced model call
// (src/models/call-model-observed.ts) reports to it as `generateText` would, so it records a span per call with the
// model id, token usage and finish reason, nested under the `generate` activity's span.
import { OpenTelemetry } from '@ai-sdk/otel';
import type { generateText } from 'ai';
import { AgentTelemetry } from './agent-telemetry.js';

/** The `telemetry` option of the AI SDK's `generateText`. */
export type ModelCallTelemetry = NonNullable<Parameters<typeof generateText>[0]['telemetry']>;

/** `functionId` of the model calls, the AI SDK's name for what made them. */
export const MODEL_CALL_FUNCTION_ID = 'durable-agent.generate';

const integrations = new WeakMap<AgentTelemetry, OpenTelemetry>();

/**
 * The AI SDK telemetry settings (`generateText`'s `telemetry` option) for one model call: off (`undefined`) unless tracing is installed
 * in this process. Prompts and outputs are recorded only with `recordContent`. The integration is passed per call,
 * not registered globally, so an application's own `generateText` calls keep their own telemetry settings.
 */
export function modelCallTelemetry(telemetry = AgentTelemetry.current()): ModelCallTelemetry | undefined {
  if (!telemetry) return undefined;
  let integration = integrations.get(telemetry);
  if (!integration) {
    integration = new OpenTelemetry({ tracer: telemetry.tracer, agentSpanName: 'functionId' });
    integrations.set(telemetry, integration);
  }
  return {
    isEnabled: true,
    functionId: MODEL_CALL_FUNCTION_ID,
    recordInputs: telemetry.recordContent,
    recordOutputs: telemetry.recordContent,
    integrations: integration,
  };
}
