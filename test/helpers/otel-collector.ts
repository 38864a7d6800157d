import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis.js';

/**
 * A real OpenTelemetry Collector of the test's own (scripts/otel/install-collector.sh builds it
 * into a cache outside the repo): the OTLP/HTTP receiver on a free 127.0.0.1 port and the file
 * exporter writing what it received as OTLP JSON lines. Tests that need it skip (with the reason)
 * when it is not built, except in CI (CI set), which builds it: there a missing binary fails them.
 */
const SCRIPT = new URL('../../scripts/otel/install-collector.sh', import.meta.url).pathname;
/** The version the install script pins: one place says it. */
const VERSION = /^OTELCOL_VERSION="([^"]+)"/m.exec(readFileSync(SCRIPT, 'utf8'))?.[1] ?? 'unknown';
const CACHE = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
const DIR = process.env.HOOKGATE_OTELCOL_DIR ?? join(CACHE, 'hookgate', `otelcol-${VERSION}`);
const CANDIDATE = join(DIR, 'otelcol-hookgate');
export const OTELCOL = existsSync(CANDIDATE) ? CANDIDATE : undefined;
export const SKIP_OTELCOL = !OTELCOL && !process.env.CI;
/** For a describe title: why it is skipped, when it is. */
export const otelcolNote = SKIP_OTELCOL
  ? ` (skipped: the OpenTelemetry Collector ${VERSION} is not built; run bash scripts/otel/install-collector.sh)`
  : '';

/** One span as the collector wrote it (OTLP JSON), with its resource's attributes beside it. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; attributes: Record<string, unknown> }>;
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
}

/** One log record as the collector wrote it: its body text and attributes. */
export interface CollectedLog {
  body: string;
  eventName?: string;
  attributes: Record<string, unknown>;
}

export interface TestCollector {
  /** The OTLP/HTTP base URL (server.tracing.otlp_endpoint). */
  endpoint: string;
  /** Every span received so far. */
  spans(): CollectedSpan[];
  /** Every log record received so far (decision records with server.decisions.to: otlp). */
  logs(): CollectedLog[];
  /** Resolves with the spans once `ready` holds for them (the file exporter writes in batches). */
  waitFor(ready: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<CollectedSpan[]>;
  stop(): Promise<void>;
}

export async function startCollector(): Promise<TestCollector> {
  if (!OTELCOL) throw new Error(`the collector is not built (${CANDIDATE}); run bash ${SCRIPT}`);
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-otelcol-'));
  const out = join(dir, 'traces.jsonl');
  const port = await freePort();
  writeFileSync(
    join(dir, 'config.yaml'),
    `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${port}
exporters:
  file:
    path: ${out}
    flush_interval: 50ms
service:
  # No telemetry listener of its own (its default port would clash between parallel test files).
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
    logs:
      receivers: [otlp]
      exporters: [file]
`,
  );
  const child: ChildProcess = spawn(OTELCOL, ['--config', join(dir, 'config.yaml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  // The collector says when every pipeline is running: the test starts then, not after a guess.
  await new Promise<void>((resolve, reject) => {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('Everything is ready')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`collector exited (${code}) before it was ready:\n${stderr}`)),
    );
    child.once('error', reject);
  });
  const spans = (): CollectedSpan[] => {
    const found: CollectedSpan[] = [];
    for (const line of completeLines(out)) {
      for (const rs of JSON.parse(line).resourceSpans ?? []) {
        const resource = attributesOf(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            found.push({
              ...s,
              parentSpanId: s.parentSpanId ?? '',
              attributes: attributesOf(s.attributes),
              events: (s.events ?? []).map((e: { name: string; attributes?: unknown[] }) => ({
                name: e.name,
                attributes: attributesOf(e.attributes),
              })),
              status: s.status ?? {},
              resource,
            });
          }
        }
      }
    }
    return found;
  };
  const logs = (): CollectedLog[] => {
    const found: CollectedLog[] = [];
    for (const line of completeLines(out)) {
      for (const rl of JSON.parse(line).resourceLogs ?? []) {
        for (const sl of rl.scopeLogs ?? []) {
          for (const r of sl.logRecords ?? []) {
            found.push({
              body: r.body?.stringValue,
              eventName: r.eventName,
              attributes: attributesOf(r.attributes),
            });
          }
        }
      }
    }
    return found;
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    logs,
    async waitFor(ready, timeoutMs = 20_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const now = spans();
        if (ready(now)) return now;
        if (Date.now() > until) {
          throw new Error(
            `the collector did not receive the spans awaited; it has:\n${JSON.stringify(now, null, 1)}`,
          );
        }
        // The file exporter flushes every 50 ms; this only polls its file.
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The file's lines the exporter has finished: it flushes its buffer as it fills, so the last piece
 * may be half a line until the next flush.
 */
function completeLines(file: string): string[] {
  if (!existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.pop();
  return lines.filter((l) => l.trim() !== '');
}

/** OTLP JSON's attribute list (`[{key, value: {stringValue}}]`) as a plain object. */
function attributesOf(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of (list ?? []) as Array<{ key: string; value: Record<string, unknown> }>)
    out[a.key] = anyValue(a.value);
  return out;
}

function anyValue(v: Record<string, unknown>): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v)
    return ((v.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValue);
  return v;
}
