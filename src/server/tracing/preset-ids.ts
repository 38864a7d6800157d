import type { IdGenerator } from '@opentelemetry/sdk-trace';
import { newSpanId, newTraceId } from './traceparent.js';

/**
 * Span ids chosen before their span exists. A hook call's span id is sent to the hook (its
 * `traceparent`) while the hook runs, but the span itself is built only when the call's decision
 * is final, with the decision's own timestamps: so the SDK's tracer is handed the ids to use for
 * the span it is about to start. `use` is synchronous with the `startSpan` that consumes it.
 */
export class PresetIds implements IdGenerator {
  private traceId: string | undefined;
  private spanId: string | undefined;

  /** The ids the next span started takes (a trace id is only asked for a span without a parent). */
  use(traceId: string, spanId: string): void {
    this.traceId = traceId;
    this.spanId = spanId;
  }

  generateTraceId(): string {
    const id = this.traceId ?? newTraceId();
    this.traceId = undefined;
    return id;
  }

  generateSpanId(): string {
    const id = this.spanId ?? newSpanId();
    this.spanId = undefined;
    return id;
  }
}
