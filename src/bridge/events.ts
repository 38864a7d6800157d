import type { BridgeLog } from './log.js';

export interface EventForwarderOptions {
  /** Events waiting to be sent; PicoClaw's own event buffer per hook manager is 64. */
  queueSize?: number;
  /** Events being sent at once (WS: written but not yet flushed; HTTP: POSTs awaiting 202). */
  maxInFlight?: number;
  /** At most one "dropped" warning per this interval; the count is in every one of them. */
  logEveryMs?: number;
}

type Send = (method: string, params: unknown) => Promise<void>;

/**
 * Forwards runtime-event notifications without ever blocking calls or stdin. A slow or unreachable
 * gateway makes events drop (newest first, like PicoClaw's own drop_newest buffer) with a counter;
 * memory is bounded by queueSize + maxInFlight events, whatever the host sends.
 */
export class EventForwarder {
  private readonly queue: Array<{ method: string; params: unknown }> = [];
  private inFlight = 0;
  private closed = false;
  private lastDropLog = 0;
  forwarded = 0;
  dropped = 0;

  private readonly queueSize: number;
  private readonly maxInFlight: number;
  private readonly logEveryMs: number;

  constructor(
    private readonly send: Send,
    private readonly log: BridgeLog,
    options: EventForwarderOptions = {},
  ) {
    this.queueSize = options.queueSize ?? 64;
    this.maxInFlight = options.maxInFlight ?? 4;
    this.logEveryMs = options.logEveryMs ?? 10_000;
    if (this.queueSize < 0 || this.maxInFlight < 1) throw new RangeError('EventForwarder: bad bounds');
  }

  /** Number of events held by the forwarder right now (queued plus being sent). */
  get held(): number {
    return this.queue.length + this.inFlight;
  }

  push(method: string, params: unknown): void {
    if (this.closed) return;
    if (this.inFlight < this.maxInFlight) {
      this.dispatch(method, params);
      return;
    }
    if (this.queue.length >= this.queueSize) {
      this.drop('queue full: the gateway is slow or unreachable');
      return;
    }
    this.queue.push({ method, params });
  }

  /** Stops forwarding; what is still queued is counted as dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.dropped += this.queue.length;
    this.queue.length = 0;
  }

  /** Resolves when nothing is being sent any more, or after `timeoutMs` (for the final counters). */
  async settled(timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (this.inFlight > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  }

  private dispatch(method: string, params: unknown): void {
    this.inFlight++;
    let sending: Promise<void>;
    try {
      sending = this.send(method, params);
    } catch (err) {
      sending = Promise.reject(err);
    }
    sending.then(
      () => {
        this.forwarded++;
        this.next();
      },
      (err: unknown) => {
        this.drop(err instanceof Error ? err.message : String(err));
        this.next();
      },
    );
  }

  private next(): void {
    this.inFlight--;
    const item = this.closed ? undefined : this.queue.shift();
    if (item) this.dispatch(item.method, item.params);
  }

  private drop(reason: string): void {
    this.dropped++;
    const now = Date.now();
    if (this.dropped === 1 || now - this.lastDropLog >= this.logEveryMs) {
      this.lastDropLog = now;
      this.log.warn('runtime event dropped', { reason, events_dropped: this.dropped });
    }
  }
}
