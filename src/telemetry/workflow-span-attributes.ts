import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * The span processor workflow spans reach through Temporal's OpenTelemetry plugin. Its exporter copies the whole
 * workflow info onto each workflow span's attributes, the run's memo and search attributes included; the memo
 * holds the final record of an ended run (its events: tool arguments and outputs), so content would reach traces
 * even with `recordContent` off. OpenTelemetry attribute values are primitives or arrays of them, so only those
 * are kept (workflow id, run id, type, task queue, attempt, history length...), and objects are dropped.
 */
export class WorkflowSpanAttributeFilter implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    const attributes = span.attributes as Record<string, unknown>;
    for (const [key, value] of Object.entries(attributes)) {
      if (!isAttributeValue(value)) delete attributes[key];
    }
    this.next.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}

function isAttributeValue(value: unknown): boolean {
  if (Array.isArray(value)) return value.every((item) => item === null || item === undefined || isPrimitive(item));
  return isPrimitive(value);
}

function isPrimitive(value: unknown): boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}
