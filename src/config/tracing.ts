import { z } from 'zod';
import type { ConfigIssue } from './errors.js';

/**
 * `server.tracing`: OpenTelemetry spans for each hook call, exported over OTLP/HTTP
 * (docs/observability.md, "Traces"). Off by default: absent, the call path does no tracing work.
 */
export const tracingSchema = z
  .object({
    /** The collector's OTLP/HTTP base URL (`http://collector:4318`); spans are POSTed to `/v1/traces`. */
    otlp_endpoint: z.string().min(1),
    /**
     * Headers sent with every export (a vendor's API key): name → value, where a value is a secret
     * reference (`env:NAME`, `file:PATH`) or, for what is not secret, the text itself.
     */
    headers: z.record(z.string(), z.string().min(1)).default({}),
    /** The spans' `service.name` resource attribute. */
    service_name: z.string().min(1).max(256).default('hookgate'),
    /**
     * The share of new traces recorded, 0 to 1. A call whose host sent a `traceparent` follows the
     * host's sampled flag instead, so a trace is recorded whole or not at all.
     */
    sample: z.number().min(0).max(1).default(1),
  })
  .strict();

export type TracingDocument = z.infer<typeof tracingSchema>;

export interface TracingSettings {
  /** Where spans go: the base URL with `/v1/traces` appended. */
  tracesUrl: string;
  /** Where decision records go with `server.decisions.to: otlp`: the base URL with `/v1/logs`. */
  logsUrl: string;
  /** Resolved header values (may hold a key): never log them. */
  headers: Record<string, string>;
  serviceName: string;
  sample: number;
}

type Resolve = (ref: string, path: string) => string | undefined;

// RFC 9110 token characters; a value may not hold a line break (it would end the header).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;
/** Set by the exporter itself: a config that names them would send two or a wrong one. */
const RESERVED = new Set(['content-type', 'content-length', 'host', 'transfer-encoding', 'connection']);

/** `server.decisions.to: otlp` sends records to the tracing collector: it needs `server.tracing`. */
export function checkDecisionsOtlp(
  decisionsTo: string | undefined,
  tracing: TracingDocument | undefined,
  issues: ConfigIssue[],
): void {
  if (decisionsTo === 'otlp' && tracing === undefined) {
    issues.push({
      path: 'server.decisions.to',
      message: 'otlp sends the records to server.tracing.otlp_endpoint: set server.tracing',
    });
  }
}

/** `server.tracing` as the runtime uses it, or undefined when tracing is off (or has issues). */
export function compileTracing(
  doc: TracingDocument | undefined,
  resolve: Resolve,
  issues: ConfigIssue[],
): TracingSettings | undefined {
  if (!doc) return undefined;
  const base = 'server.tracing';
  const before = issues.length;
  const tracesUrl = tracesUrlOf(doc.otlp_endpoint, `${base}.otlp_endpoint`, issues);
  const headers: Record<string, string> = {};
  for (const [name, ref] of Object.entries(doc.headers)) {
    const path = `${base}.headers.${name}`;
    if (!HEADER_NAME.test(name)) {
      issues.push({ path, message: 'is not a valid HTTP header name' });
      continue;
    }
    if (RESERVED.has(name.toLowerCase())) {
      issues.push({ path, message: 'is set by the exporter itself; remove it' });
      continue;
    }
    const value = resolve(ref, path);
    if (value === undefined) continue;
    // The message never quotes the value: it may be a key.
    if (!HEADER_VALUE.test(value)) {
      issues.push({ path, message: 'resolves to a value with a line break, which no header may hold' });
      continue;
    }
    headers[name.toLowerCase()] = value;
  }
  if (issues.length > before || tracesUrl === undefined) return undefined;
  const logsUrl = `${tracesUrl.slice(0, -'/v1/traces'.length)}/v1/logs`;
  return { tracesUrl, logsUrl, headers, serviceName: doc.service_name, sample: doc.sample };
}

/** The base URL plus `/v1/traces`, as the OTLP/HTTP spec builds the signal's path. */
function tracesUrlOf(value: string, path: string, issues: ConfigIssue[]): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    issues.push({ path, message: 'is not a URL (e.g. http://collector:4318)' });
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    issues.push({ path, message: `must be http:// or https:// (got ${url.protocol})` });
    return undefined;
  }
  if (url.username || url.password) {
    issues.push({ path, message: 'must not carry credentials; put them in server.tracing.headers' });
    return undefined;
  }
  if (url.search || url.hash) {
    issues.push({ path, message: 'is a base URL: no query or fragment (spans go to <base>/v1/traces)' });
    return undefined;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}/v1/traces`;
}
