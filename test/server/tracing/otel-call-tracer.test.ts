import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import type { Decision } from '../../../src/server/decision.js';
import { OtelCallTracer } from '../../../src/server/tracing/otel-call-tracer.js';
import { parseTraceparent } from '../../../src/server/tracing/traceparent.js';

const HOST_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const HOST_SPAN = '00f067aa0ba902b7';

function decision(over: Partial<Decision> = {}): Decision {
  const startedAt = performance.now();
  return {
    id: crypto.randomUUID(),
    time: Date.now(),
    tenant: 'acme',
    hook: 'guard',
    dialect: 'picoclaw',
    method: 'hook.before_tool',
    tool: 'shell',
    configRevision: 'rev1',
    kind: 'passed',
    params: { tool: 'shell', arguments: { command: 'cat /secret-argument' }, tool_call_id: 'call_7' },
    violations: [],
    startedAt,
    hookMs: 0,
    totalMs: 0,
    ...over,
  };
}

let tracer: OtelCallTracer | undefined;
afterEach(async () => {
  await tracer?.shutdown();
  tracer = undefined;
});

async function run(sample: number, calls: Array<(t: OtelCallTracer) => void>): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  tracer = new OtelCallTracer({ serviceName: 'hookgate-test', sample, exporter });
  for (const call of calls) call(tracer);
  await tracer.forceFlush();
  return exporter.getFinishedSpans();
}

/** The call path's two steps, with the hook taking `hookMs` and the whole call `totalMs`. */
function asked(d: Decision, hookMs: number, totalMs: number, sent: { traceparent?: string }) {
  return (t: OtelCallTracer) => {
    d.hookStartedAt = d.startedAt + 1;
    sent.traceparent = t.hookStarted(d);
    d.hookMs = hookMs;
    d.totalMs = totalMs;
    t.decided(d);
  };
}

describe('OtelCallTracer', () => {
  it("makes a SERVER span under the host's traceparent and a CLIENT hook span whose context the hook was sent", async () => {
    const d = decision({ traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-01` });
    const sent: { traceparent?: string } = {};
    const spans = await run(1, [asked(d, 5, 8, sent)]);
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    const hook = spans.find((s) => s.kind === SpanKind.CLIENT)!;
    expect(spans).toHaveLength(2);
    expect(server.spanContext().traceId).toBe(HOST_TRACE);
    expect(server.parentSpanContext?.spanId).toBe(HOST_SPAN);
    expect(hook.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(parseTraceparent(sent.traceparent)).toEqual({
      traceId: HOST_TRACE,
      spanId: hook.spanContext().spanId,
      sampled: true,
    });
    // Times are the decision's own: the hook span lasts hookMs, the call totalMs.
    const ms = (t: [number, number]) => t[0] * 1e3 + t[1] / 1e6;
    expect(ms(hook.endTime) - ms(hook.startTime)).toBeCloseTo(5, 1);
    expect(ms(server.endTime) - ms(server.startTime)).toBeCloseTo(8, 1);
    expect(server.name).toBe('hook.before_tool shell');
    expect(server.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'shell',
      'gen_ai.tool.call.id': 'call_7',
      'hookgate.tenant': 'acme',
      'hookgate.hook': 'guard',
      'hookgate.decision.id': d.id,
      'hookgate.decision.kind': 'passed',
      'hookgate.config.revision': 'rev1',
    });
    expect(JSON.stringify([server.attributes, hook.attributes])).not.toContain('secret-argument');
    expect(server.resource.attributes['service.name']).toBe('hookgate-test');
  });

  it('starts a new trace without a valid traceparent, and records refusals as events by rule', async () => {
    const d = decision({
      traceparent: 'not-a-traceparent',
      kind: 'changed',
      violations: [{ rule: 'rewrite_arguments_not_granted', tool: 'shell', detail: 'cat /secret-argument' }],
    });
    const spans = await run(1, [asked(d, 1, 2, {})]);
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(server.attributes['hookgate.violation.rules']).toEqual(['rewrite_arguments_not_granted']);
    expect(server.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'hookgate.violation',
        { 'hookgate.rule': 'rewrite_arguments_not_granted', 'gen_ai.tool.name': 'shell' },
      ],
    ]);
    expect(JSON.stringify(server.events)).not.toContain('secret-argument');
  });

  it('marks a failed call and its hook span ERROR with the failure code', async () => {
    const d = decision({
      kind: 'failed',
      failure: { code: 'BACKEND_TIMEOUT', why: 'no reply', onFailure: 'open' },
    });
    const spans = await run(1, [asked(d, 3, 4, {})]);
    expect(spans.map((s) => [s.kind, s.status])).toEqual(
      expect.arrayContaining([
        [SpanKind.SERVER, { code: SpanStatusCode.ERROR, message: 'BACKEND_TIMEOUT' }],
        [SpanKind.CLIENT, { code: SpanStatusCode.ERROR, message: 'BACKEND_TIMEOUT' }],
      ]),
    );
    expect(spans.find((s) => s.kind === SpanKind.SERVER)!.attributes['error.type']).toBe('BACKEND_TIMEOUT');
  });

  it('makes only the SERVER span for a call the hook never saw', async () => {
    const d = decision({
      kind: 'refused',
      violations: [{ rule: 'tool_not_granted', tool: 'shell', detail: '' }],
    });
    const spans = await run(1, [(t) => t.decided(d)]);
    expect(spans.map((s) => s.kind)).toEqual([SpanKind.SERVER]);
  });

  it("follows the host's unsampled flag and the sample share, but still sends the hook a context", async () => {
    const unsampled = decision({ traceparent: `00-${HOST_TRACE}-${HOST_SPAN}-00` });
    const sent: { traceparent?: string } = {};
    expect(await run(1, [asked(unsampled, 1, 2, sent)])).toEqual([]);
    expect(parseTraceparent(sent.traceparent)).toMatchObject({ traceId: HOST_TRACE, sampled: false });
    await tracer?.shutdown();
    expect(await run(0, [asked(decision(), 1, 2, {})])).toEqual([]);
  });
});
