import type { TracingSettings } from '../../config/tracing.js';
import type { DecisionOutput } from '../decision-log.js';

/** How long one batch may take before it is abandoned (the DecisionLog then counts it dropped). */
const EXPORT_TIMEOUT_MS = 10_000;
/** OTLP's SeverityNumber INFO: a decision is a record of what happened, not a problem. */
const SEVERITY_INFO = 9;

/**
 * `server.decisions.to: otlp`: each decision record as an OTLP log record (event
 * `hookgate.decision`), POSTed as OTLP/HTTP JSON to the collector of `server.tracing`
 * (`<otlp_endpoint>/v1/logs`, with its headers). The body is the record's own JSON text, so a log
 * backend keeps exactly what the file sink would have written; a few fields are repeated as
 * attributes to search by, `hookgate.decision.id` among them, the same as on the call's span.
 * A batch the collector refuses rejects, and the DecisionLog counts it dropped.
 */
export function otlpDecisionOutput(
  settings: Pick<TracingSettings, 'logsUrl' | 'headers' | 'serviceName'>,
  doFetch: typeof fetch = (input, init) => fetch(input, init),
): DecisionOutput {
  const resource = { attributes: [attr('service.name', settings.serviceName)] };
  return async (lines) => {
    const observed = `${Date.now()}000000`;
    const logRecords = lines.map((line) => logRecord(line, observed));
    const body = JSON.stringify({
      resourceLogs: [{ resource, scopeLogs: [{ scope: { name: 'hookgate' }, logRecords }] }],
    });
    const response = await doFetch(settings.logsUrl, {
      method: 'POST',
      headers: { ...settings.headers, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (!response.ok) throw new Error(`${settings.logsUrl} answered HTTP ${response.status}`);
  };
}

function logRecord(line: string, observed: string) {
  const record = JSON.parse(line) as Record<string, unknown>;
  const time = typeof record.time === 'string' ? Date.parse(record.time) : Number.NaN;
  const attributes = [attr('event.name', 'hookgate.decision')];
  for (const [key, field] of SEARCHABLE) {
    const value = record[field];
    if (typeof value === 'string') attributes.push(attr(key, value));
  }
  return {
    timeUnixNano: Number.isNaN(time) ? observed : `${time}000000`,
    observedTimeUnixNano: observed,
    severityNumber: SEVERITY_INFO,
    severityText: 'INFO',
    eventName: 'hookgate.decision',
    body: { stringValue: line },
    attributes,
  };
}

/** Record fields repeated as log attributes, under the names the call's span uses. */
const SEARCHABLE: ReadonlyArray<readonly [string, string]> = [
  ['hookgate.decision.id', 'decision_id'],
  ['hookgate.decision.kind', 'kind'],
  ['hookgate.tenant', 'tenant'],
  ['hookgate.hook', 'hook'],
  ['hookgate.dialect', 'dialect'],
  ['hookgate.config.revision', 'config_revision'],
];

function attr(key: string, value: string) {
  return { key, value: { stringValue: value } };
}
