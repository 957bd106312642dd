// Which tracing the standard OpenTelemetry environment variables switch on, and the errors for what is not built in.
import { describe, expect, it } from 'vitest';
import { createSpanExporters, traceExportPlan } from '../../src/telemetry/span-exporter-from-env.js';
import { TelemetryConfigError } from '../../src/telemetry/telemetry-config-error.js';
import { installRuntimeFromEnv } from '../../src/telemetry/worker-runtime.js';

describe('traceExportPlan', () => {
  it('is off by default, with OTEL_TRACES_EXPORTER=none, and with OTEL_SDK_DISABLED=true', () => {
    expect(traceExportPlan({}).enabled).toBe(false);
    expect(traceExportPlan({ OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
    expect(
      traceExportPlan({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toEqual({ enabled: false, reason: 'OTEL_SDK_DISABLED=true' });
  });

  it('turns on OTLP over HTTP/protobuf when an OTLP endpoint is set', () => {
    for (const variable of ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) {
      expect(traceExportPlan({ [variable]: 'http://collector:4318' })).toEqual({
        enabled: true,
        exporters: [{ kind: 'otlp', protocol: 'http/protobuf' }],
      });
    }
  });

  it('honours the exporter list and the OTLP protocol, traces-specific variable first', () => {
    expect(
      traceExportPlan({
        OTEL_TRACES_EXPORTER: 'otlp, console',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      }),
    ).toEqual({ enabled: true, exporters: [{ kind: 'otlp', protocol: 'http/json' }, { kind: 'console' }] });
    const plan = traceExportPlan({ OTEL_TRACES_EXPORTER: 'console' });
    expect(createSpanExporters(plan).map((e) => e.constructor.name)).toEqual(['ConsoleSpanExporter']);
  });

  it('refuses exporters and protocols it does not ship, naming the variable and what to use', () => {
    const zipkin = (() => {
      try {
        return traceExportPlan({ OTEL_TRACES_EXPORTER: 'zipkin' });
      } catch (error) {
        return error;
      }
    })();
    expect(TelemetryConfigError.isInstance(zipkin)).toBe(true);
    expect((zipkin as Error).message).toContain('OTEL_TRACES_EXPORTER=zipkin is not built into durable-agent');
    expect(() => traceExportPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL=grpc .*use http\/protobuf/,
    );
  });
});

describe('installRuntimeFromEnv', () => {
  it('refuses a Prometheus address that is not host:port', () => {
    expect(() => installRuntimeFromEnv({}, { DURABLE_AGENT_PROMETHEUS_BIND_ADDRESS: '9464' })).toThrow(
      /DURABLE_AGENT_PROMETHEUS_BIND_ADDRESS=9464 is not a host:port address/,
    );
  });
});
