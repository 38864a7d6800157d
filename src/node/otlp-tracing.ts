import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import type { TracingSettings } from '../config/tracing.js';
import type { Logger } from '../server/logger.js';
import type { Metrics } from '../server/metrics.js';
import { countedExporter } from '../server/tracing/counted-exporter.js';
import { OtelCallTracer } from '../server/tracing/otel-call-tracer.js';

/** How long one export may take before it is abandoned (and its spans counted as failed). */
const EXPORT_TIMEOUT_MS = 10_000;

/**
 * server.tracing on Node: the call tracer with OpenTelemetry's OTLP/HTTP exporter (JSON), whose
 * Node transport (node:http) is why this lives here; the tracer itself is web-standard.
 */
export function nodeCallTracer(settings: TracingSettings, metrics: Metrics, log: Logger): OtelCallTracer {
  const exporter = new OTLPTraceExporter({
    url: settings.tracesUrl,
    headers: settings.headers,
    timeoutMillis: EXPORT_TIMEOUT_MS,
  });
  return new OtelCallTracer({
    serviceName: settings.serviceName,
    sample: settings.sample,
    exporter: countedExporter(exporter, metrics, log),
  });
}
