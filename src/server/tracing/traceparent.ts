/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header): read
 * from what a host sends, written for what a hook receives. Web-standard (Web Crypto's random bytes).
 */
export interface TraceIds {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** Whether the trace is sampled (trace-flags bit 0). */
  sampled: boolean;
}

// Version 00 has exactly these four fields; a later version may append more after a dash, which a
// version-00 reader must ignore (the spec's forward compatibility rule).
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The ids in a `traceparent` value, or undefined when it is absent or not a valid one. */
export function parseTraceparent(value: unknown): TraceIds | undefined {
  if (typeof value !== 'string' || value.length > 512) return undefined;
  const m = TRACEPARENT.exec(value.trim());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  // ff is forbidden; version 00 has nothing after the flags.
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, sampled: (Number.parseInt(flags, 16) & 1) === 1 };
}

/** The version-00 `traceparent` for these ids. */
export function formatTraceparent(ids: TraceIds): string {
  return `00-${ids.traceId}-${ids.spanId}-${ids.sampled ? '01' : '00'}`;
}

/** A random trace id (16 bytes as hex). */
export function newTraceId(): string {
  return randomHex(16);
}

/** A random span id (8 bytes as hex). */
export function newSpanId(): string {
  return randomHex(8);
}

function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes));
  let hex = '';
  for (const b of buf) hex += (b < 16 ? '0' : '') + b.toString(16);
  // All zero is invalid; at 2^-64 it is not worth a loop, but it must never be sent.
  return /^0+$/.test(hex) ? randomHex(bytes) : hex;
}
