import { tracingChannel } from 'node:diagnostics_channel';
import { AI_SDK_TELEMETRY_TRACING_CHANNEL } from 'ai';

/** What `generateText` is given when nothing could observe its telemetry: the SDK then skips all of it. */
export const TELEMETRY_OFF = Object.freeze({ isEnabled: false as const });

// Kept for the process: `hasSubscribers` reads the channel's current subscribers each time.
const channel = tracingChannel(AI_SDK_TELEMETRY_TRACING_CHANNEL);

/**
 * `{ isEnabled: false }` when no one could see a model call's telemetry: no integration registered globally with
 * the AI SDK's `registerTelemetry`, and no subscriber on its `ai:telemetry` tracing channel. Otherwise `undefined`,
 * so the SDK reports the call to them exactly as before.
 *
 * Why: with `telemetry` unset, `generateText` still builds its telemetry dispatcher, events and three tracing-channel
 * spans per call only to find no one listening (about half of a model call's own CPU with a fast model). Turning it
 * off when there is provably no listener changes nothing anyone can observe.
 */
export function telemetryWhenUnobserved(): typeof TELEMETRY_OFF | undefined {
  const integrations = (globalThis as { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown }).AI_SDK_TELEMETRY_INTEGRATIONS;
  if (integrations !== undefined && (!Array.isArray(integrations) || integrations.length > 0)) return undefined;
  // A runtime whose tracing channels cannot say (no `hasSubscribers`) counts as observed.
  if ((channel as { hasSubscribers?: boolean }).hasSubscribers !== false) return undefined;
  return TELEMETRY_OFF;
}
