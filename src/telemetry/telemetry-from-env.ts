import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { AgentTelemetry } from './agent-telemetry.js';
import { createSpanExporters, traceExportPlan } from './span-exporter-from-env.js';

type Env = Record<string, string | undefined>;

/**
 * The process's tracing as the standard OpenTelemetry environment variables configure it (see
 * {@link traceExportPlan}), installed on first use; `undefined` when they leave tracing off. An
 * {@link AgentTelemetry} installed earlier in code wins. `DURABLE_AGENT_OTEL_RECORD_CONTENT=true` records prompts,
 * outputs and tool arguments in spans.
 */
export function telemetryFromEnv(env: Env = process.env): AgentTelemetry | undefined {
  const current = AgentTelemetry.current();
  if (current) return current;
  const plan = traceExportPlan(env);
  if (!plan.enabled) return undefined;
  const processors: SpanProcessor[] = createSpanExporters(plan).map((exporter) => new BatchSpanProcessor(exporter));
  return AgentTelemetry.install({
    spanProcessor: processors.length === 1 ? processors[0]! : new FanOutSpanProcessor(processors),
    recordContent: env.DURABLE_AGENT_OTEL_RECORD_CONTENT?.trim().toLowerCase() === 'true',
  });
}

/** Hands every span to several processors (`OTEL_TRACES_EXPORTER=otlp,console`). */
class FanOutSpanProcessor implements SpanProcessor {
  constructor(private readonly processors: SpanProcessor[]) {}
  onStart(...args: Parameters<SpanProcessor['onStart']>): void {
    for (const processor of this.processors) processor.onStart(...args);
  }
  onEnd(...args: Parameters<SpanProcessor['onEnd']>): void {
    for (const processor of this.processors) processor.onEnd(...args);
  }
  async forceFlush(): Promise<void> {
    await Promise.all(this.processors.map((processor) => processor.forceFlush()));
  }
  async shutdown(): Promise<void> {
    await Promise.all(this.processors.map((processor) => processor.shutdown()));
  }
}
