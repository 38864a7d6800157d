import { fitsUtf8, utf8Length } from '../core/ndjson.js';
import type { JsonRpcId } from '../protocol/jsonrpc.js';
import { ErrorCode } from '../protocol/jsonrpc.js';
import { isCallMethod, Method } from '../protocol/methods.js';
import { shapeResult } from './answer.js';
import type { EventForwarder } from './events.js';
import { failureAnswer, neutralAnswer } from './failure.js';
import type { BridgeLog, LineSink } from './log.js';
import type { BridgeOptions } from './options.js';
import { asUpstreamError, type Upstream, UpstreamError } from './upstream.js';

/** PicoClaw's stdout reader: a line, newline included, must fit in 1 MiB or the reader stops for good. */
export const MAX_STDOUT_LINE_BYTES = 1024 * 1024;

interface Call {
  id: JsonRpcId;
  method: string;
  done: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export interface BridgeStats {
  calls: number;
  failures: number;
  replaced: number;
}

/**
 * PicoClaw's side of the bridge: one NDJSON line in, at most one line out per request, ids echoed as
 * the host sent them. Every call is answered exactly once and by its deadline, whatever the
 * upstream does; notifications are never answered.
 */
export class StdioBridge {
  private readonly calls = new Set<Call>();
  private outbox: string[] = [];
  /** Waiting for every call read so far to be answered (see idle()). */
  private idleWaiters: (() => void)[] = [];
  private upstreamStarted = false;
  private stopped = false;
  readonly stats: BridgeStats = { calls: 0, failures: 0, replaced: 0 };

  constructor(
    private readonly options: BridgeOptions,
    private readonly upstream: Upstream,
    private readonly events: EventForwarder,
    private readonly stdout: LineSink,
    private readonly log: BridgeLog,
  ) {}

  handleLine(line: string): void {
    if (this.stopped) return;
    let msg: Record<string, unknown>;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new Error('not an object');
      msg = value as Record<string, unknown>;
    } catch {
      this.log.warn('ignored a stdin line that is not a JSON object', { line: line.slice(0, 200) });
      return;
    }
    const method = msg.method;
    const id = msg.id;
    if (typeof method !== 'string') {
      this.log.debug('ignored a stdin message without a method', {
        id: typeof id === 'number' ? id : undefined,
      });
      return;
    }
    if (id === undefined || id === null) {
      this.ensureStarted();
      this.events.push(method, msg.params);
      return;
    }
    if (typeof id !== 'number' && typeof id !== 'string') {
      this.log.warn('ignored a request with an invalid id', { method });
      return;
    }
    if (method === Method.Hello) this.hello(id, msg.params);
    // A well-formed request goes upstream as the host wrote it: no second serialisation.
    else this.forward(id, method, msg.params, msg.jsonrpc === '2.0' ? line : undefined, line);
  }

  /** Answers what is still pending by the failure mode (the host is going away) and stops. */
  stop(): void {
    if (this.stopped) return;
    for (const call of [...this.calls]) {
      this.fail(call, new UpstreamError('UPSTREAM_STOPPED', 'bridge is stopping'));
    }
    this.stopped = true;
  }

  get pending(): number {
    return this.calls.size;
  }

  /**
   * Resolves once every call read so far has its answer written to stdout: each by its own
   * deadline at the latest, so this waits no longer than the longest of them.
   */
  idle(): Promise<void> {
    if (this.calls.size === 0 && this.outbox.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** PicoClaw's startup waits on hello with no timeout of its own: answer it now, connect after. */
  private hello(id: JsonRpcId, params: unknown): void {
    const name = (params as { name?: unknown } | undefined)?.name;
    this.write({ jsonrpc: '2.0', id, result: typeof name === 'string' ? { ok: true, name } : { ok: true } });
    if (!this.upstreamStarted) {
      this.upstreamStarted = true;
      this.upstream.start(params);
    }
  }

  private ensureStarted(): void {
    if (this.upstreamStarted) return;
    this.upstreamStarted = true;
    this.upstream.start();
  }

  private forward(
    id: JsonRpcId,
    method: string,
    params: unknown,
    asIs: string | undefined,
    line: string,
  ): void {
    this.ensureStarted();
    this.stats.calls++;
    const timeoutMs = method === Method.ApproveTool ? this.options.approvalTimeoutMs : this.options.timeoutMs;
    const call: Call = { id, method, done: false };
    this.calls.add(call);
    call.timer = setTimeout(() => {
      this.fail(call, new UpstreamError('UPSTREAM_TIMEOUT', `gateway did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    // The forwarded message is the host's line with another id: its size is known before sending.
    if (!fitsUtf8(line, this.options.maxMessageBytes)) {
      const why = `call is ${utf8Length(line)} bytes, over --max-message-bytes ${this.options.maxMessageBytes}`;
      this.fail(call, new UpstreamError('UPSTREAM_TOO_LARGE', why));
      return;
    }
    this.upstream.call(method, params, timeoutMs, asIs === undefined ? undefined : { id, text: asIs }).then(
      (result) => this.succeed(call, params, result),
      (err: unknown) => this.fail(call, asUpstreamError(err)),
    );
  }

  private succeed(call: Call, params: unknown, result: unknown): void {
    if (!this.settle(call)) return;
    const tool = (params as { tool?: unknown } | undefined)?.tool;
    const shaped = shapeResult(call.method, result, { allowRespond: this.options.allowRespond, tool });
    if (shaped.kind === 'bad') {
      this.failed(call, 'UPSTREAM_BAD_REPLY', shaped.why);
      return;
    }
    if (shaped.kind === 'refused') {
      this.stats.replaced++;
      this.log.warn('gateway answer refused by the bridge', {
        id: call.id,
        method: call.method,
        reason: shaped.why,
      });
    }
    this.answer(call, shaped.answer);
  }

  private fail(call: Call, err: UpstreamError): void {
    if (!this.settle(call)) return;
    this.failed(call, err.code, err.message);
  }

  private failed(call: Call, code: string, reason: string): void {
    this.stats.failures++;
    this.log.warn('answered by failure mode', { id: call.id, method: call.method, code, reason });
    if (isCallMethod(call.method)) {
      this.answer(call, failureAnswer(call.method, this.options.onFailure, reason));
      return;
    }
    // A method PicoClaw does not have: there is no failure answer to give, only an error.
    this.write({ jsonrpc: '2.0', id: call.id, error: { code: ErrorCode.BackendError, message: reason } });
  }

  private settle(call: Call): boolean {
    if (call.done || this.stopped) return false;
    call.done = true;
    clearTimeout(call.timer);
    this.calls.delete(call);
    return true;
  }

  /** Writes the answer, or the neutral answer when the line would kill PicoClaw's reader. */
  private answer(call: Call, result: unknown): void {
    const text = JSON.stringify({ jsonrpc: '2.0', id: call.id, result });
    if (fitsUtf8(text, MAX_STDOUT_LINE_BYTES - 1)) {
      this.emit(`${text}\n`);
      return;
    }
    this.stats.replaced++;
    const why = `answer is ${utf8Length(text) + 1} bytes, over PicoClaw's 1 MiB line limit`;
    this.log.warn('gateway answer too big for PicoClaw; answered neutrally', {
      id: call.id,
      method: call.method,
      why,
    });
    this.write({ jsonrpc: '2.0', id: call.id, result: neutralAnswer(call.method, why) });
  }

  private write(message: unknown): void {
    this.emit(`${JSON.stringify(message)}\n`);
  }

  /**
   * Answers settled in the same tick leave in one write (one syscall instead of one per answer when
   * many calls are in flight); order is kept. The last answer owed, with none waiting before it,
   * has nothing to share a write with: it is written now, without the tick (one call at a time,
   * PicoClaw's shape, is always this case).
   */
  private emit(line: string): void {
    if (this.outbox.length === 0 && this.calls.size === 0) {
      this.stdout.write(line);
      this.wakeIdle();
      return;
    }
    if (this.outbox.length === 0) process.nextTick(this.flush);
    this.outbox.push(line);
  }

  private readonly flush = (): void => {
    const lines = this.outbox;
    this.outbox = [];
    this.stdout.write(lines.length === 1 ? lines[0] : lines.join(''));
    this.wakeIdle();
  };

  private wakeIdle(): void {
    if (this.calls.size === 0 && this.idleWaiters.length > 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
