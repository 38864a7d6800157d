import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from '../logger.js';
import type { Metrics } from '../metrics.js';

/** At most one warning per this many failed exports: a collector that is down must not flood the log. */
const WARN_EVERY = 100;

/**
 * An exporter that says how its exports went: spans sent and lost in
 * hookgate_spans_exported_total{outcome}, and a warning (the first, then every hundredth) when
 * a batch is lost. The SDK's own diagnostics are silent by default, so without this a collector
 * that refuses every batch would go unnoticed.
 */
export function countedExporter(inner: SpanExporter, metrics: Metrics, log: Logger): SpanExporter {
  const ok = metrics.counter('hookgate_spans_exported_total', { outcome: 'ok' });
  const failed = metrics.counter('hookgate_spans_exported_total', { outcome: 'failed' });
  // Shown as 0 from the start, so a dashboard sees the series before the first export.
  ok(0);
  failed(0);
  let failures = 0;
  return {
    export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
      inner.export(spans, (result) => {
        if (result.code === ExportResultCode.SUCCESS) ok(spans.length);
        else {
          failed(spans.length);
          if (failures++ % WARN_EVERY === 0) {
            // The error names the endpoint and a status, never the export headers.
            log.warn({ spans: spans.length, err: result.error?.message }, 'tracing: spans not exported');
          }
        }
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}
