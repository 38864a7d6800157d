import {
  ROOT_CONTEXT,
  type Context,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { Decision } from '../decision.js';
import type { CallTracer } from '../gateway.js';
import { callAttributes, callSpanName } from './call-attributes.js';
import { PresetIds } from './preset-ids.js';
import { formatTraceparent, newSpanId, newTraceId, parseTraceparent, type TraceIds } from './traceparent.js';

export interface OtelCallTracerOptions {
  /** The spans' `service.name`. */
  serviceName: string;
  /** The share of new traces recorded (a call with a parent follows the parent's sampled flag). */
  sample: number;
  /** Where batches of finished spans go (OTLP/HTTP in production, in memory in tests). */
  exporter: SpanExporter;
  /** Spans held for export at most; more are dropped (the SDK's default is 2048). */
  maxQueueSize?: number;
  /** How long a span may wait for its batch (the SDK's default is 5 s). */
  scheduledDelayMs?: number;
}

/** What a call's spans will be: chosen when the hook is asked (or at the end, if it never was). */
interface CallSpanIds {
  traceId: string;
  /** The call's SERVER span. */
  serverSpanId: string;
  /** The hook call's CLIENT span, whose context the hook was sent. */
  hookSpanId?: string;
  /** The host's span, when it sent a valid traceparent. */
  parent?: TraceIds;
  sampled: boolean;
}

/**
 * The gateway's CallTracer on OpenTelemetry's SDK: per call a SERVER span (a child of the host's
 * `traceparent` when it sent a valid one, else the root of a new trace) and, when the hook was
 * asked, a CLIENT span for the hook call beneath it, whose context is what the hook receives.
 *
 * The call path only makes ids (hookStarted); the spans are built when the decision is final, with
 * explicit start and end times taken from the decision's own clock readings, and handed to a batch
 * processor that exports them off the call path. An export that fails drops its batch: tracing
 * never slows or fails a call. Web-standard; the runtime supplies the exporter.
 */
export class OtelCallTracer implements CallTracer {
  private readonly provider: TracerProvider;
  private readonly tracer: Tracer;
  private readonly ids = new PresetIds();
  /** Ids per call, from hookStarted to decided; weak, so an abandoned call takes its ids with it. */
  private readonly calls = new WeakMap<Decision, CallSpanIds>();
  private readonly sample: number;

  constructor(opts: OtelCallTracerOptions) {
    this.sample = opts.sample;
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': opts.serviceName }),
      // Sampling is decided here per call (see idsOf); the SDK records what it is given.
      sampler: new AlwaysOnSampler(),
      idGenerator: this.ids,
      spanProcessors: [
        new BatchSpanProcessor({
          exporter: opts.exporter,
          maxQueueSize: opts.maxQueueSize,
          scheduledDelayMillis: opts.scheduledDelayMs,
        }),
      ],
    });
    this.tracer = this.provider.getTracer('hookgate');
  }

  hookStarted(decision: Decision): string | undefined {
    const ids = this.idsOf(decision);
    ids.hookSpanId = newSpanId();
    return formatTraceparent({ traceId: ids.traceId, spanId: ids.hookSpanId, sampled: ids.sampled });
  }

  decided(decision: Decision): void {
    const ids = this.idsOf(decision);
    this.calls.delete(decision);
    if (!ids.sampled) return;
    try {
      this.record(decision, ids);
    } catch {
      // A span the SDK cannot build is lost, never the call's answer.
    }
  }

  /**
   * Exports every span finished so far (tests; a Worker before its request ends). Never rejects:
   * a failed export is counted and logged by the exporter (counted-exporter.ts), not thrown here.
   */
  forceFlush(): Promise<void> {
    return this.provider.forceFlush().catch(() => {});
  }

  /** Exports what is queued, then stops: the last step of a shutdown. Never rejects either. */
  shutdown(): Promise<void> {
    return this.provider.shutdown().catch(() => {});
  }

  private idsOf(decision: Decision): CallSpanIds {
    let ids = this.calls.get(decision);
    if (ids !== undefined) return ids;
    const parent = parseTraceparent(decision.traceparent);
    // A host's sampled flag decides for its trace (recorded whole or not at all); a new trace is
    // recorded at the configured share.
    const sampled = parent
      ? parent.sampled
      : this.sample >= 1 || (this.sample > 0 && Math.random() < this.sample);
    ids = { traceId: parent?.traceId ?? newTraceId(), serverSpanId: newSpanId(), parent, sampled };
    this.calls.set(decision, ids);
    return ids;
  }

  private record(d: Decision, ids: CallSpanIds): void {
    // performance.now() readings on the wall clock: one origin for the call's and the hook's spans.
    const origin = performance.timeOrigin;
    const start = origin + d.startedAt;
    const parentContext = ids.parent
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId: ids.parent.traceId,
          spanId: ids.parent.spanId,
          traceFlags: TraceFlags.SAMPLED,
          isRemote: true,
        })
      : ROOT_CONTEXT;
    this.ids.use(ids.traceId, ids.serverSpanId);
    const server = this.tracer.startSpan(
      callSpanName(d),
      { kind: SpanKind.SERVER, startTime: start, attributes: callAttributes(d) },
      parentContext,
    );
    for (const v of d.violations) {
      // The rule and the tool it concerns; never the detail, which may quote the call's arguments.
      server.addEvent(
        'hookgate.violation',
        v.tool === undefined
          ? { 'hookgate.rule': v.rule }
          : { 'hookgate.rule': v.rule, 'gen_ai.tool.name': v.tool },
        start + d.totalMs,
      );
    }
    if (d.hookStartedAt !== undefined && ids.hookSpanId !== undefined) {
      this.hookSpan(d, ids, trace.setSpan(ROOT_CONTEXT, server), origin + d.hookStartedAt);
    }
    if (d.kind === 'failed') server.setStatus(errorStatus(d));
    server.end(start + d.totalMs);
  }

  private hookSpan(d: Decision, ids: CallSpanIds, parent: Context, start: number): void {
    this.ids.use(ids.traceId, ids.hookSpanId as string);
    const span: Span = this.tracer.startSpan(
      `hook ${d.hook}`,
      {
        kind: SpanKind.CLIENT,
        startTime: start,
        attributes: {
          'hookgate.tenant': d.tenant,
          'hookgate.hook': d.hook,
          'hookgate.method': d.method,
          ...(d.failure === undefined ? {} : { 'error.type': d.failure.code }),
        },
      },
      parent,
    );
    if (d.kind === 'failed') span.setStatus(errorStatus(d));
    span.end(start + d.hookMs);
  }
}

/** ERROR with the failure's code: its `why` may quote what the hook wrote, so it stays in the log. */
function errorStatus(d: Decision): { code: SpanStatusCode; message?: string } {
  return { code: SpanStatusCode.ERROR, message: d.failure?.code };
}
