// The process's tracing setup for durable agents: one tracer provider whose spans go to one span processor, used by
// Temporal's OpenTelemetry interceptors (client, workflow, activities), the tool-call spans and the AI SDK's
// model-call spans, so a run's whole trace lands in one place.
import type { Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { Resource, envDetectorSync } from '@opentelemetry/resources';
import { BasicTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import { WorkflowSpanAttributeFilter } from './workflow-span-attributes.js';

/** Name of the tracer (instrumentation scope) of durable-agent's own spans. */
export const TRACER_NAME = 'durable-agent';

/** Options of {@link AgentTelemetry.install}. */
export interface AgentTelemetryOptions {
  /** Where finished spans go: a `BatchSpanProcessor` around an exporter, or a test's in-memory processor. */
  spanProcessor: SpanProcessor;
  /** `service.name` unless `OTEL_SERVICE_NAME` / `OTEL_RESOURCE_ATTRIBUTES` say otherwise. Default `durable-agent`. */
  serviceName?: string;
  /**
   * Record prompts, model outputs and tool arguments in spans. Default false: they may hold personal data or
   * secrets a tool returned, and a tracing backend is rarely the place for them.
   */
  recordContent?: boolean;
}

let installed: AgentTelemetry | undefined;

/**
 * Tracing for durable agents. Built once per process with {@link AgentTelemetry.install} (or from the standard
 * OpenTelemetry environment variables by `telemetryFromEnv`), then handed to `DurableAgentPlugin`, which adds
 * Temporal's OpenTelemetry interceptors and the tool-call spans to the worker and the client.
 */
export class AgentTelemetry {
  readonly provider: BasicTracerProvider;
  readonly tracer: Tracer;
  readonly resource: Resource;
  readonly spanProcessor: SpanProcessor;
  readonly recordContent: boolean;
  /** Temporal's own plugin: client, workflow and activity interceptors, and the sink for workflow spans. */
  readonly temporalPlugin: OpenTelemetryPlugin;

  private constructor(options: AgentTelemetryOptions) {
    this.resource = new Resource({ 'service.name': options.serviceName ?? 'durable-agent' }).merge(
      envDetectorSync.detect(),
    );
    this.spanProcessor = options.spanProcessor;
    this.recordContent = options.recordContent ?? false;
    this.provider = new BasicTracerProvider({ resource: this.resource, spanProcessors: [options.spanProcessor] });
    this.tracer = this.provider.getTracer(TRACER_NAME);
    this.temporalPlugin = new OpenTelemetryPlugin({
      resource: this.resource,
      // Workflow spans only: they carry the workflow info, memo included, unless filtered.
      spanProcessor: new WorkflowSpanAttributeFilter(this.spanProcessor),
      tracer: this.tracer,
    });
  }

  /**
   * Sets up tracing for this process, once: later calls return the first setup (a second provider would split a
   * run's trace). The provider becomes the global one, with an AsyncLocalStorage context manager (so spans started
   * inside an activity nest under it) and the W3C trace-context propagator, unless the application registered its
   * own before; durable-agent's spans use this provider either way.
   */
  static install(options: AgentTelemetryOptions): AgentTelemetry {
    if (installed) return installed;
    const telemetry = new AgentTelemetry(options);
    // `register` leaves an existing global provider, context manager or propagator in place: an application's own
    // OpenTelemetry setup wins. The propagator is the one OTEL_PROPAGATORS names (W3C trace context by default).
    telemetry.provider.register({ contextManager: new AsyncLocalStorageContextManager().enable() });
    installed = telemetry;
    return telemetry;
  }

  /** The telemetry installed in this process, if any. */
  static current(): AgentTelemetry | undefined {
    return installed;
  }

  /** Exports spans still buffered (call before a process exits). */
  async forceFlush(): Promise<void> {
    await this.provider.forceFlush();
  }

  /** Flushes and stops the span processor. */
  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}
