import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/sdk/index.js';
import { createWorker } from '../../src/worker/worker.js';
import { testModules } from './entry.js';
import { BINDINGS, CONFIG } from './fixtures.js';
import { beforeTool, rpc, token } from './helpers.js';
import hook from './hooks/tool-hook.js';

const HOOK_SECRET = `whsec_${btoa('workerd-test-webhook-secret-0123')}`;
const UPSTREAM = 'https://tool-hook.example/rpc';
const COLLECTOR = 'https://collector.example';
const HOST_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const HOST_SPAN = '00f067aa0ba902b7';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  name: string;
}

/**
 * A gateway Worker with server.tracing whose outbound fetch stands in for both the collector
 * (keeping each OTLP/HTTP export it is sent) and an http hook (keeping the traceparent it is sent).
 */
function tracedGateway() {
  const exports: Array<{ headers: Headers; body: any }> = [];
  const sentToHook: Array<string | null> = [];
  const logs: any[] = [];
  const serve = toFetchHandler(hook, { secret: HOOK_SECRET });
  const upstream = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.url === `${COLLECTOR}/v1/traces`) {
      exports.push({ headers: request.headers, body: await request.json() });
      return Response.json({});
    }
    if (request.url === `${COLLECTOR}/v1/logs`) {
      logs.push(await request.json());
      return Response.json({});
    }
    sentToHook.push(request.headers.get('traceparent'));
    return serve(request);
  };
  const doc = structuredClone(CONFIG) as any;
  doc.server = {
    ...doc.server,
    tracing: {
      otlp_endpoint: COLLECTOR,
      headers: { 'x-otlp-key': 'env:OTLP_KEY' },
      service_name: 'hookgate-worker',
    },
    decisions: { to: 'otlp' },
  };
  doc.tenants.acme.hooks.remote = {
    backend: { type: 'http', url: UPSTREAM, secret: 'env:HOOK_SECRET', timeout_ms: 2000 },
    modes: ['tool'],
    tools: ['get_weather'],
  };
  const worker = createWorker({ modules: testModules, sink: () => {}, fetch: upstream as typeof fetch });
  const env = { ...BINDINGS, HOOKGATE_CONFIG: JSON.stringify(doc), HOOK_SECRET, OTLP_KEY: 'worker-otlp-key' };
  const post = async (body: unknown, headers: Record<string, string>, ctx: ExecutionContext) =>
    worker.fetch(
      new Request('https://hookgate.test/v1/tenants/acme/hooks/remote', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}`, ...headers },
        body: JSON.stringify(body),
      }),
      env,
      ctx,
    );
  const spans = (): OtlpSpan[] =>
    exports.flatMap((e) =>
      e.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans as OtlpSpan[])),
    );
  return { post, exports, spans, sentToHook, logs };
}

describe('traces on workerd', () => {
  it("exports a request's spans and decision record before the Worker lets go of it, the hook's context sent along", async () => {
    const { post, exports, spans, sentToHook, logs } = tracedGateway();
    const ctx = createExecutionContext();
    const res = await post(
      rpc('hook.before_tool', beforeTool('get_weather', { city: 'Oslo' }), 1),
      { traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-01` },
      ctx,
    );
    expect(res.status).toBe(200);
    await waitOnExecutionContext(ctx);
    const server = spans().find((s) => s.kind === 2);
    const hookSpan = spans().find((s) => s.kind === 3);
    expect(server).toMatchObject({
      traceId: HOST_TRACE,
      parentSpanId: HOST_SPAN,
      name: 'hook.before_tool get_weather',
    });
    expect(hookSpan).toMatchObject({
      traceId: HOST_TRACE,
      parentSpanId: server?.spanId,
      name: 'hook remote',
    });
    expect(sentToHook).toEqual([`00-${HOST_TRACE}-${hookSpan?.spanId}-01`]);
    expect(exports[0]?.headers.get('x-otlp-key')).toBe('worker-otlp-key');
    expect(exports[0]?.headers.get('content-type')).toBe('application/json');
    // The call's decision record went to the same collector as an OTLP log record.
    const records = logs.flatMap((l) => l.resourceLogs[0].scopeLogs[0].logRecords);
    expect(records).toHaveLength(1);
    expect(JSON.parse(records[0].body.stringValue)).toMatchObject({ tool: 'get_weather', kind: 'passed' });
  });
});
