import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingSettings } from '../../config/tracing.js';

/** How long one export may take before it is abandoned (its spans then count as failed). */
const EXPORT_TIMEOUT_MS = 10_000;

/**
 * OTLP/HTTP (JSON) over a fetch the runtime hands in: the Worker's exporter. OpenTelemetry's own
 * exporter bundles for workerd too, but always calls the global fetch; the Worker routes outbound
 * requests through its own (WorkerOptions.fetch: a service binding, the tests' stand-in), so this
 * one takes it, and uses OpenTelemetry's serializer so the body is the same OTLP JSON.
 */
export class FetchSpanExporter implements SpanExporter {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly settings: Pick<TracingSettings, 'tracesUrl' | 'headers'>,
    private readonly doFetch: typeof fetch = (input, init) => fetch(input, init),
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    const sent = this.send(spans).then(done, (error: unknown) =>
      done({
        code: ExportResultCode.FAILED,
        error: error instanceof Error ? error : new Error(String(error)),
      }),
    );
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.pending);
  }

  shutdown(): Promise<void> {
    return this.forceFlush();
  }

  private async send(spans: ReadableSpan[]): Promise<ExportResult> {
    const body = JsonTraceSerializer.serializeRequest(spans);
    if (body === undefined)
      return { code: ExportResultCode.FAILED, error: new Error('spans not serialisable') };
    const response = await this.doFetch(this.settings.tracesUrl, {
      method: 'POST',
      headers: { ...this.settings.headers, 'content-type': 'application/json' },
      // Its own ArrayBuffer-backed copy: fetch's BodyInit types take no view of a shared buffer.
      body: new Uint8Array(body),
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    });
    // Read to the end so the connection can be reused; the body (a partial success) is not needed.
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return { code: ExportResultCode.SUCCESS };
    return {
      code: ExportResultCode.FAILED,
      error: new Error(`${this.settings.tracesUrl} answered HTTP ${response.status}`),
    };
  }
}
