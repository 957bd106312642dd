import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { AI_SDK_TELEMETRY_TRACING_CHANNEL, registerTelemetry } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { callModel } from '../../src/models/call-model.js';
import { ScriptedLanguageModel } from '../../src/models/scripted-model.js';
import { TELEMETRY_OFF, telemetryWhenUnobserved } from '../../src/models/unobserved-telemetry.js';

type Global = { AI_SDK_TELEMETRY_INTEGRATIONS?: unknown };
const model = () => new ScriptedLanguageModel({ steps: [{ text: 'hi' }] });
const call = () => callModel({ model: model(), messages: [{ role: 'user', content: 'Hello' }] });

describe('model calls skip the AI SDK telemetry only when nothing listens', () => {
  const saved = (globalThis as Global).AI_SDK_TELEMETRY_INTEGRATIONS;
  afterEach(() => {
    if (saved === undefined) delete (globalThis as Global).AI_SDK_TELEMETRY_INTEGRATIONS;
    else (globalThis as Global).AI_SDK_TELEMETRY_INTEGRATIONS = saved;
  });

  it('turns it off with no global integration and no tracing-channel subscriber', () => {
    delete (globalThis as Global).AI_SDK_TELEMETRY_INTEGRATIONS;
    expect(telemetryWhenUnobserved()).toBe(TELEMETRY_OFF);
  });

  it('leaves it to the SDK when an integration is registered globally, which still sees each call', async () => {
    delete (globalThis as Global).AI_SDK_TELEMETRY_INTEGRATIONS;
    const started: string[] = [];
    registerTelemetry({ onStart: (event: { operationId: string }) => void started.push(event.operationId) });
    expect(telemetryWhenUnobserved()).toBeUndefined();
    await call();
    expect(started).toEqual(['ai.generateText']);
  });

  it("leaves it to the SDK when the 'ai:telemetry' tracing channel has a subscriber, which still sees each call", async () => {
    delete (globalThis as Global).AI_SDK_TELEMETRY_INTEGRATIONS;
    const seen: unknown[] = [];
    const onStart = (message: unknown) => void seen.push(message);
    const name = `tracing:${AI_SDK_TELEMETRY_TRACING_CHANNEL}:start`;
    subscribe(name, onStart);
    try {
      expect(tracingChannel(AI_SDK_TELEMETRY_TRACING_CHANNEL).hasSubscribers).toBe(true);
      expect(telemetryWhenUnobserved()).toBeUndefined();
      await call();
      expect(seen.length).toBeGreaterThan(0);
    } finally {
      unsubscribe(name, onStart);
    }
    expect(telemetryWhenUnobserved()).toBe(TELEMETRY_OFF);
  });
});
