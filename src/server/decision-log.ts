import type { DecisionSettings } from '../config/decisions.js';
import { redactText } from './logger.js';
import type { Decision } from './decision.js';
import { type Sha256, toDecisionRecord } from './decision-record.js';
import type { Metrics } from './metrics.js';

/**
 * Where a runtime puts a batch of record lines (each one JSON text, no newline): Node appends them
 * to stdout or a file, a Worker logs each to the console. A rejection drops the batch (counted).
 */
export type DecisionOutput = (lines: string[]) => void | Promise<void>;

/** Records written to the output in one go at most. */
const BATCH = 256;

/**
 * The decision records' writer: off the call path and bounded. A call only queues its decision
 * (or not, when sampled out); the records are built (digests) and written later, one batch at a
 * time. When the output is slow the queue fills to `maxQueued` and further records are dropped;
 * when it fails the batch is dropped. Both are counted in hookgate_decision_records_dropped_total,
 * and neither ever slows or fails a call.
 */
export class DecisionLog {
  private readonly queue: Array<{ decision: Decision; includeBodies: boolean }> = [];
  private running: Promise<void> | undefined;
  private scheduled = false;
  private readonly written: (by?: number) => void;
  private readonly droppedFull: (by?: number) => void;
  private readonly droppedFailed: (by?: number) => void;

  constructor(
    private readonly settings: DecisionSettings,
    private readonly output: DecisionOutput | undefined,
    metrics: Metrics,
    /** The digests' SHA-256 (default Web Crypto's, which on Node costs a thread-pool round trip each). */
    private readonly hash?: Sha256,
  ) {
    // Resolved (and shown as 0) from the start, so a dashboard sees the series before any drop.
    this.written = metrics.counter('hookgate_decision_records_total', {});
    this.droppedFull = metrics.counter('hookgate_decision_records_dropped_total', { reason: 'queue_full' });
    this.droppedFailed = metrics.counter('hookgate_decision_records_dropped_total', {
      reason: 'write_failed',
    });
    for (const c of [this.written, this.droppedFull, this.droppedFailed]) c(0);
  }

  /** Whether a call is recorded: decided once per call, before anything is built for it. */
  sampled(): boolean {
    if (this.output === undefined || this.settings.target.kind === 'off') return false;
    const s = this.settings.sample;
    return s >= 1 || (s > 0 && Math.random() < s);
  }

  /** Whether a hook's records carry the params and answers themselves. */
  includesBodies(conversationAccess: boolean): boolean {
    return conversationAccess || this.settings.includeArgs;
  }

  /** Queues a final decision; never blocks, never throws. */
  record(decision: Decision, includeBodies: boolean): void {
    if (this.queue.length >= this.settings.maxQueued) {
      this.droppedFull();
      return;
    }
    this.queue.push({ decision, includeBodies });
    if (this.running === undefined && !this.scheduled) {
      this.scheduled = true;
      // A macrotask, not a microtask: the call's answer goes out before its record is built.
      setTimeout(() => {
        this.scheduled = false;
        this.start();
      }, 0);
    }
  }

  /** Resolves once every record queued so far is written or dropped (tests, shutdown, Workers). */
  async flush(): Promise<void> {
    while (this.queue.length > 0 || this.running !== undefined) {
      this.start();
      await this.running;
    }
  }

  /**
   * Starts draining unless a drain runs. `running` is cleared by a callback, never inside drain():
   * a drain that finds the queue empty finishes synchronously, before its promise could be stored.
   */
  private start(): void {
    if (this.running !== undefined) return;
    const run: Promise<void> = this.drain().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
  }

  /** Records waiting to be written. */
  get pending(): number {
    return this.queue.length + (this.running === undefined ? 0 : 1);
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      const lines: string[] = [];
      for (const { decision, includeBodies } of batch) {
        try {
          const text = JSON.stringify(await toDecisionRecord(decision, includeBodies, this.hash));
          // Arguments and answers are there only by grant or opt-in; a token in them still never is.
          lines.push(includeBodies ? redactText(text) : text);
        } catch {
          this.droppedFailed();
        }
      }
      if (lines.length === 0) continue;
      try {
        await this.output?.(lines);
        this.written(lines.length);
      } catch {
        this.droppedFailed(lines.length);
      }
    }
  }
}
