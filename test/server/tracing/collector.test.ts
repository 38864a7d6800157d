import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import {
  type CollectedSpan,
  otelcolNote,
  SKIP_OTELCOL,
  startCollector,
  type TestCollector,
} from '../../helpers/otel-collector.js';

/**
 * Spans a real OpenTelemetry Collector receives from a real gateway (server.tracing) over OTLP/HTTP,
 * for calls over HTTP and WebSocket to an http hook that records the traceparent it is sent.
 */

// OTLP's enums as the collector writes them.
const SERVER = 2;
const CLIENT = 3;
const STATUS_ERROR = 2;

const hex = (n: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, '0')).join('');
const traceparent = (trace: string, span: string) => `00-${trace}-${span}-01`;
/** An SDK hook that answers with the traceparent it was given (module and stdio alike). */
const ECHO_HOOK = 'test/helpers/trace-echo-hook.ts';
const SECRET = `whsec_${Buffer.from('t'.repeat(32)).toString('base64')}`;

/** An http hook: answers continue (or HTTP 500 on /broken) and keeps each call's traceparent header by tool. */
interface RecordingHook {
  url: string;
  received: Map<string, string | undefined>;
  close(): Promise<void>;
}

async function recordingHook(): Promise<RecordingHook> {
  const received = new Map<string, string | undefined>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      const msg = JSON.parse(body);
      if (msg.params?.tool !== undefined)
        received.set(msg.params.tool, req.headers.traceparent as string | undefined);
      if (req.url === '/broken') {
        res.writeHead(500).end('down for the test');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { action: 'continue' } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const beforeTool = (tool: string, extra: Record<string, unknown> = {}) => ({
  tool,
  arguments: { path: '/argument-value-that-must-not-leave' },
  tool_call_id: `call-${tool}`,
  ...extra,
});

let collector: TestCollector;
let hook: RecordingHook;
let gw: TestGateway;

function gatewayDoc() {
  const backend = (path: string) => ({ type: 'http', url: `${hook.url}${path}`, secret: SECRET });
  return {
    server: {
      tracing: { otlp_endpoint: collector.endpoint, service_name: 'hookgate-collector-test' },
      // Decision records as OTLP log records through the same collector.
      decisions: { to: 'otlp' },
    },
    tenants: {
      acme: tenantDoc({
        ok: { backend: backend('/ok'), modes: ['tool'], timeout_ms: 10_000 },
        broken: { backend: backend('/broken'), modes: ['tool'], timeout_ms: 10_000, on_failure: 'open' },
        mcp: { backend: backend('/ok'), modes: ['tool'], tools: ['mcp_tool'], timeout_ms: 10_000 },
        module_sdk: { backend: { type: 'module', module: ECHO_HOOK }, modes: ['tool'], timeout_ms: 10_000 },
        stdio_sdk: {
          backend: { type: 'stdio', command: [process.execPath, '--import', 'tsx', ECHO_HOOK] },
          modes: ['tool'],
          timeout_ms: 10_000,
        },
      }),
    },
  };
}

/** The server span of a call and the hook span beneath it, by the tool it named. */
function callSpans(
  spans: CollectedSpan[],
  tool: string,
): { server?: CollectedSpan; hookSpan?: CollectedSpan } {
  const server = spans.find((s) => s.kind === SERVER && s.attributes['gen_ai.tool.name'] === tool);
  const hookSpan = server && spans.find((s) => s.kind === CLIENT && s.parentSpanId === server.spanId);
  return { server, hookSpan };
}

async function postCall(hookName: string, tool: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hookName}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await gw.token()}`, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.before_tool', params: beforeTool(tool) }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

describe.skipIf(SKIP_OTELCOL)(`traces in a real OpenTelemetry Collector${otelcolNote}`, () => {
  beforeAll(async () => {
    collector = await startCollector();
    hook = await recordingHook();
    gw = await startTestGateway(gatewayDoc());
  });

  afterAll(async () => {
    await gw?.close();
    await hook?.close();
    await collector?.stop();
  });

  it("puts a call under the host's traceparent and gives the http hook its own span's context", async () => {
    const trace = hex(16);
    const hostSpan = hex(8);
    await postCall('ok', 'read_file', { traceparent: traceparent(trace, hostSpan) });
    await gw.tracer?.forceFlush();
    const spans = await collector.waitFor((s) => callSpans(s, 'read_file').hookSpan !== undefined);
    const { server, hookSpan } = callSpans(spans, 'read_file');
    expect(server).toMatchObject({
      traceId: trace,
      parentSpanId: hostSpan,
      name: 'hook.before_tool read_file',
    });
    expect(hookSpan).toMatchObject({ traceId: trace, name: 'hook ok' });
    // The hook was sent exactly the hook span's context.
    expect(hook.received.get('read_file')).toBe(traceparent(trace, hookSpan!.spanId));
    expect(server!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'read_file',
      'gen_ai.tool.call.id': 'call-read_file',
      'hookgate.tenant': 'acme',
      'hookgate.hook': 'ok',
      'hookgate.dialect': 'picoclaw',
      'hookgate.decision.kind': 'passed',
      'hookgate.config.revision': gw.config.revision,
    });
    expect(server!.attributes['hookgate.decision.id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(server!.resource['service.name']).toBe('hookgate-collector-test');
    // The hook's span lies within the call's.
    expect(BigInt(hookSpan!.startTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(server!.startTimeUnixNano));
    expect(BigInt(hookSpan!.endTimeUnixNano)).toBeLessThanOrEqual(BigInt(server!.endTimeUnixNano));
    expect(JSON.stringify(spans)).not.toContain('argument-value-that-must-not-leave');
    expect(JSON.stringify(spans)).not.toContain(await gw.token());
  });

  it('sends each decision record as an OTLP log record carrying the decision id of its span', async () => {
    await postCall('ok', 'logged_call');
    await gw.tracer?.forceFlush();
    await gw.decisions.flush();
    const spans = await collector.waitFor((s) => callSpans(s, 'logged_call').server !== undefined);
    const id = callSpans(spans, 'logged_call').server!.attributes['hookgate.decision.id'];
    // The file exporter writes logs in batches of their own, apart from the spans: wait for this one.
    const ofCall = () => collector.logs().find((l) => l.attributes['hookgate.decision.id'] === id);
    await expect.poll(ofCall, { timeout: 20_000 }).toBeDefined();
    const log = ofCall();
    expect(log).toMatchObject({
      eventName: 'hookgate.decision',
      attributes: { 'event.name': 'hookgate.decision', 'hookgate.tenant': 'acme', 'hookgate.hook': 'ok' },
    });
    expect(JSON.parse(log!.body)).toMatchObject({
      schema: expect.any(String),
      decision_id: id,
      tool: 'logged_call',
    });
  });

  it('starts a new trace for a call without a traceparent', async () => {
    await postCall('ok', 'list_dir');
    await gw.tracer?.forceFlush();
    const spans = await collector.waitFor((s) => callSpans(s, 'list_dir').hookSpan !== undefined);
    const { server, hookSpan } = callSpans(spans, 'list_dir');
    expect(server!.parentSpanId).toBe('');
    expect(hook.received.get('list_dir')).toBe(traceparent(server!.traceId, hookSpan!.spanId));
  });

  it('marks the call and the hook span ERROR when the hook fails', async () => {
    const answer = await postCall('broken', 'write_file');
    expect(answer.result).toMatchObject({ action: 'continue' });
    await gw.tracer?.forceFlush();
    const spans = await collector.waitFor((s) => callSpans(s, 'write_file').hookSpan !== undefined);
    const { server, hookSpan } = callSpans(spans, 'write_file');
    expect(server!.status).toMatchObject({ code: STATUS_ERROR, message: 'BACKEND_UNAVAILABLE' });
    expect(hookSpan!.status).toMatchObject({ code: STATUS_ERROR, message: 'BACKEND_UNAVAILABLE' });
    expect(server!.attributes).toMatchObject({
      'hookgate.decision.kind': 'failed',
      'error.type': 'BACKEND_UNAVAILABLE',
    });
    expect(hook.received.get('write_file')).toBe(traceparent(server!.traceId, hookSpan!.spanId));
  });

  it("gives each WebSocket call its own span: the message's trace context, else the upgrade's", async () => {
    const upgradeTrace = hex(16);
    const upgradeSpan = hex(8);
    const [metaTrace, metaSpan, underscoreTrace, underscoreSpan] = [hex(16), hex(8), hex(16), hex(8)];
    const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/ok/ws`, {
      headers: {
        authorization: `Bearer ${await gw.token()}`,
        traceparent: traceparent(upgradeTrace, upgradeSpan),
      },
    });
    const answered = new Set<number>();
    const all = new Promise<void>((resolve, reject) => {
      ws.on('message', (d) => {
        answered.add(JSON.parse(d.toString()).id);
        if (answered.size === 3) resolve();
      });
      ws.once('error', reject);
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const send = (id: number, params: unknown) =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'hook.before_tool', params }));
    send(1, beforeTool('ws_meta', { meta: { traceparent: traceparent(metaTrace, metaSpan) } }));
    send(
      2,
      beforeTool('ws_underscore', { _meta: { traceparent: traceparent(underscoreTrace, underscoreSpan) } }),
    );
    send(3, beforeTool('ws_plain'));
    await all;
    ws.close();
    await gw.tracer?.forceFlush();
    const tools = ['ws_meta', 'ws_underscore', 'ws_plain'];
    const spans = await collector.waitFor((s) => tools.every((t) => callSpans(s, t).hookSpan !== undefined));
    const parents = tools.map((t) => {
      const { server, hookSpan } = callSpans(spans, t);
      expect(hook.received.get(t)).toBe(traceparent(server!.traceId, hookSpan!.spanId));
      return [server!.traceId, server!.parentSpanId];
    });
    expect(parents).toEqual([
      [metaTrace, metaSpan],
      [underscoreTrace, underscoreSpan],
      [upgradeTrace, upgradeSpan],
    ]);
  });

  it("takes an MCP tools/call's trace context from its params._meta (SEP-414), and records a refusal by rule", async () => {
    const trace = hex(16);
    const mcpSpan = hex(8);
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/mcp/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        authorization: `Bearer ${await gw.token()}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'mcp_tool', arguments: {}, _meta: { traceparent: traceparent(trace, mcpSpan) } },
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    await gw.tracer?.forceFlush();
    // The hook may not respond with this tool (no grant): refused before the hook was asked.
    const spans = await collector.waitFor((s) => callSpans(s, 'mcp_tool').server !== undefined);
    const { server, hookSpan } = callSpans(spans, 'mcp_tool');
    expect(server).toMatchObject({ traceId: trace, parentSpanId: mcpSpan, name: 'tools/call mcp_tool' });
    expect(server!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'hookgate.dialect': 'mcp',
      'hookgate.decision.kind': 'refused',
      'hookgate.violation.rules': ['tool_not_granted'],
    });
    expect(server!.events).toEqual([
      {
        name: 'hookgate.violation',
        attributes: { 'hookgate.rule': 'tool_not_granted', 'gen_ai.tool.name': 'mcp_tool' },
      },
    ]);
    expect(hookSpan).toBeUndefined();
    expect(hook.received.has('mcp_tool')).toBe(false);
  });

  it.each(['module_sdk', 'stdio_sdk'])(
    'gives an SDK hook (%s) its span as ctx.traceparent',
    async (hookName) => {
      const trace = hex(16);
      const tool = `echo_${hookName}`;
      const answer = await postCall(hookName, tool, { traceparent: traceparent(trace, hex(8)) });
      await gw.tracer?.forceFlush();
      const spans = await collector.waitFor((s) => callSpans(s, tool).hookSpan !== undefined);
      const { hookSpan } = callSpans(spans, tool);
      expect(answer.result).toMatchObject({
        action: 'deny_tool',
        reason: traceparent(trace, hookSpan!.spanId),
      });
    },
  );

  it('exports the last spans when the gateway shuts down (no flush asked for)', async () => {
    const own = await startTestGateway(gatewayDoc());
    const trace = hex(16);
    const res = await fetch(`${own.url}/v1/tenants/acme/hooks/ok`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${await own.token()}`,
        traceparent: traceparent(trace, hex(8)),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'hook.before_tool',
        params: beforeTool('at_shutdown'),
      }),
    });
    expect(res.status).toBe(200);
    await own.close('test');
    const spans = await collector.waitFor((s) => s.some((x) => x.traceId === trace && x.kind === CLIENT));
    expect(
      spans
        .filter((s) => s.traceId === trace)
        .map((s) => s.kind)
        .sort(),
    ).toEqual([SERVER, CLIENT]);
  });
});
