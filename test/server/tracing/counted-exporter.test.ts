import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeLogger } from '../../../src/node/logger.js';
import type { Decision } from '../../../src/server/decision.js';
import { Metrics } from '../../../src/server/metrics.js';
import { countedExporter } from '../../../src/server/tracing/counted-exporter.js';
import { FetchSpanExporter } from '../../../src/server/tracing/fetch-span-exporter.js';
import { OtelCallTracer } from '../../../src/server/tracing/otel-call-tracer.js';
import { LogCapture } from '../../helpers/gateway.js';

/** A collector stand-in on a real socket that answers every export with `status`. */
async function collectorAnswering(
  status: number,
): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`, bodies, server };
}

const decision = (): Decision => ({
  id: crypto.randomUUID(),
  time: Date.now(),
  tenant: 'acme',
  hook: 'guard',
  dialect: 'picoclaw',
  method: 'hook.before_tool',
  tool: 'shell',
  configRevision: 'rev',
  kind: 'passed',
  params: {},
  violations: [],
  startedAt: performance.now(),
  hookMs: 0,
  totalMs: 1,
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

describe('span exports are counted', () => {
  it.each([
    [200, 'ok'],
    [503, 'failed'],
  ])(
    'a collector answering %i counts the spans %s (and a failure is logged once, without the headers)',
    async (status, outcome) => {
      const collector = await collectorAnswering(status);
      server = collector.server;
      const metrics = new Metrics();
      const logs = new LogCapture();
      const exporter = countedExporter(
        new FetchSpanExporter({
          tracesUrl: collector.url,
          headers: { authorization: 'Bearer otlp-secret-key' },
        }),
        metrics,
        createNodeLogger('debug', logs),
      );
      const tracer = new OtelCallTracer({ serviceName: 't', sample: 1, exporter });
      tracer.decided(decision());
      tracer.decided(decision());
      await tracer.forceFlush();
      expect(collector.bodies).toHaveLength(1);
      expect(JSON.parse(collector.bodies[0] as string).resourceSpans[0].scopeSpans[0].spans).toHaveLength(2);
      const text = metrics.render();
      expect(text).toContain(`hookgate_spans_exported_total{outcome="${outcome}"} 2`);
      const warned = logs.text.includes('tracing: spans not exported');
      expect(warned).toBe(outcome === 'failed');
      expect(logs.text).not.toContain('otlp-secret-key');
      await tracer.shutdown();
    },
  );
});
