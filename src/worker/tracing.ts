import type { TracingSettings } from '../config/tracing.js';
import type { Logger } from '../server/logger.js';
import type { Metrics } from '../server/metrics.js';
import { countedExporter } from '../server/tracing/counted-exporter.js';
import { FetchSpanExporter } from '../server/tracing/fetch-span-exporter.js';
import { OtelCallTracer } from '../server/tracing/otel-call-tracer.js';

/**
 * server.tracing on a Worker: the same call tracer as on Node, exporting through the Worker's
 * fetch. A Worker's timers do not run once its requests are answered, so the batch is not left to
 * its timer: the handler flushes after every request, within ctx.waitUntil (src/worker/worker.ts).
 */
export function workerCallTracer(
  settings: TracingSettings,
  doFetch: typeof fetch | undefined,
  metrics: Metrics,
  log: Logger,
): OtelCallTracer {
  return new OtelCallTracer({
    serviceName: settings.serviceName,
    sample: settings.sample,
    exporter: countedExporter(new FetchSpanExporter(settings, doFetch), metrics, log),
  });
}
