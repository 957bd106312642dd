// Tracing and metrics for durable-agent workers and clients (worker-side: not for workflow code).
export { AgentTelemetry, TRACER_NAME, type AgentTelemetryOptions } from './agent-telemetry.js';
export { telemetryFromEnv } from './telemetry-from-env.js';
export { createSpanExporters, traceExportPlan, type TraceExportPlan } from './span-exporter-from-env.js';
export { MODEL_CALL_FUNCTION_ID, modelCallTelemetry, type ModelCallTelemetry } from './model-call-telemetry.js';
export { SpanAttribute, createActivitySpanInterceptor, type ActivitySpanOptions } from './activity-spans.js';
export { PROMETHEUS_ADDRESS_ENV, installRuntimeFromEnv } from './worker-runtime.js';
export { TelemetryConfigError } from './telemetry-config-error.js';
