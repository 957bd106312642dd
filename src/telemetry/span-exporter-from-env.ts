// Which span exporter the standard OpenTelemetry environment variables ask for. Only what a worker needs is built
// in (OTLP over HTTP, console); anything else is a startup error that says what to use instead.
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ConsoleSpanExporter, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { TelemetryConfigError } from './telemetry-config-error.js';

type Env = Record<string, string | undefined>;

/** What the environment asks for: nothing (tracing off), or the exporters to send spans to. */
export type TraceExportPlan =
  | { enabled: false; reason: string }
  | {
      enabled: true;
      exporters: Array<{ kind: 'otlp'; protocol: 'http/protobuf' | 'http/json' } | { kind: 'console' }>;
    };

/**
 * Reads `OTEL_SDK_DISABLED`, `OTEL_TRACES_EXPORTER`, `OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT` and
 * `OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL`. Tracing is off unless an exporter or an OTLP endpoint is named (unlike
 * the OpenTelemetry SDK, whose default exporter is OTLP: a worker must not start sending spans on its own).
 *
 * @throws TelemetryConfigError for an exporter or protocol that is not built in.
 */
export function traceExportPlan(env: Env = process.env): TraceExportPlan {
  const read = (name: string) => env[name]?.trim() || undefined;
  if (read('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { enabled: false, reason: 'OTEL_SDK_DISABLED=true' };
  const endpoint = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? read('OTEL_EXPORTER_OTLP_ENDPOINT');
  const names = (read('OTEL_TRACES_EXPORTER') ?? (endpoint ? 'otlp' : 'none'))
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'none');
  if (names.length === 0) {
    return { enabled: false, reason: 'neither OTEL_TRACES_EXPORTER nor OTEL_EXPORTER_OTLP_ENDPOINT is set' };
  }
  const exporters = [...new Set(names)].map((name) => {
    if (name === 'console') return { kind: 'console' as const };
    if (name !== 'otlp') {
      throw new TelemetryConfigError(
        'OTEL_TRACES_EXPORTER',
        `OTEL_TRACES_EXPORTER=${name} is not built into durable-agent: use otlp (with an OpenTelemetry Collector ` +
          'in front of other backends), console or none, or pass your own span processor to AgentTelemetry.install.',
      );
    }
    const variable = read('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
      ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
      : 'OTEL_EXPORTER_OTLP_PROTOCOL';
    const protocol = read(variable) ?? 'http/protobuf';
    if (!isBuiltInProtocol(protocol)) {
      throw new TelemetryConfigError(
        variable,
        `${variable}=${protocol} is not built into durable-agent: use http/protobuf (the default; collectors listen ` +
          'on port 4318) or http/json, or pass your own span processor to AgentTelemetry.install.',
      );
    }
    return { kind: 'otlp' as const, protocol };
  });
  return { enabled: true, exporters };
}

function isBuiltInProtocol(protocol: string): protocol is 'http/protobuf' | 'http/json' {
  return protocol === 'http/protobuf' || protocol === 'http/json';
}

/** Builds the exporters of a plan. The OTLP exporters read their endpoint, headers and timeout from the environment. */
export function createSpanExporters(plan: TraceExportPlan): SpanExporter[] {
  if (!plan.enabled) return [];
  return plan.exporters.map((exporter) => {
    if (exporter.kind === 'console') return new ConsoleSpanExporter();
    return exporter.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  });
}
