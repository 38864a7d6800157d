import { LogRateLimit } from '../lib/log-rate-limit.js';

/**
 * What a hosted hook's stderr may cost the gateway. A hook can write faster than any log pipeline
 * takes it, and every tenant shares that pipeline, so lines are rate-limited per hook, cut short,
 * and what is dropped is counted instead of logged. The pipe itself is always read to the end: a
 * hook blocked on a full stderr pipe would stop answering.
 */
export interface StderrLimits {
  /** Lines logged at once before the rate applies. */
  burstLines: number;
  /** Lines per second logged after the burst. */
  linesPerSecond: number;
  /** Bytes of a line kept; the rest is replaced by a note of how much was cut. */
  maxLineBytes: number;
  /** How often a summary of dropped lines is logged (only when some were dropped). */
  summaryMs: number;
}

export const DEFAULT_STDERR_LIMITS: StderrLimits = {
  burstLines: 100,
  linesPerSecond: 20,
  maxLineBytes: 2048,
  summaryMs: 10_000,
};

export interface StderrSink {
  line(text: string): void;
  /** One line was dropped (for a counter: called at once, per line). */
  dropped(): void;
  /** `count` lines were dropped since the last summary. */
  summary(count: number): void;
}

const NEWLINE = 0x0a;
const decoder = new TextDecoder();

/** Splits a hook's stderr bytes into lines and passes on what the limits allow. */
export class HookStderr {
  private readonly limit: LogRateLimit;
  private head: Uint8Array;
  private headLength = 0;
  private lineBytes = 0;
  private summaryTimer?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly limits: StderrLimits,
    private readonly sink: StderrSink,
  ) {
    this.limit = new LogRateLimit({ burst: limits.burstLines, perSecond: limits.linesPerSecond });
    this.head = new Uint8Array(limits.maxLineBytes);
  }

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.append(chunk, start, chunk.length);
        return;
      }
      this.append(chunk, start, nl);
      this.finishLine();
      start = nl + 1;
    }
  }

  /** The stream ended: a last unterminated line, and the summary now rather than later. */
  end(): void {
    if (this.lineBytes > 0) this.finishLine();
    clearTimeout(this.summaryTimer);
    this.summaryTimer = undefined;
    this.report();
  }

  private append(chunk: Uint8Array, from: number, to: number): void {
    this.lineBytes += to - from;
    const room = this.head.length - this.headLength;
    if (room <= 0 || to <= from) return;
    const take = Math.min(room, to - from);
    this.head.set(chunk.subarray(from, from + take), this.headLength);
    this.headLength += take;
  }

  private finishLine(): void {
    const total = this.lineBytes;
    let kept = this.headLength;
    this.lineBytes = 0;
    this.headLength = 0;
    if (total === 0) return;
    if (total === kept && this.head[kept - 1] === 0x0d) kept--; // CRLF: the \r is not part of the text
    if (!this.limit.take()) {
      this.sink.dropped();
      this.summaryTimer ??= this.armSummary();
      return;
    }
    let text = decoder.decode(this.head.subarray(0, kept));
    if (total > this.head.length) text += `…[truncated ${total - kept} bytes]`;
    if (text.trim().length > 0) this.sink.line(text);
  }

  private armSummary(): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      this.summaryTimer = undefined;
      this.report();
    }, this.limits.summaryMs);
    // A pending summary must not keep a stopping process alive.
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }

  private report(): void {
    const n = this.limit.takeDropped();
    if (n > 0) this.sink.summary(n);
  }
}
