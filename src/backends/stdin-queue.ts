import { SENT } from '../core/transport.js';
import { HookgateError } from '../lib/errors.js';

/** The slice of a Node Writable the queue needs: `write` says false when its buffer is full. */
export interface DrainableSink {
  write(chunk: string | Uint8Array): boolean;
  /** Bytes taken by the stream but not yet passed to the pipe. */
  readonly writableLength: number;
  once(event: 'drain', listener: () => void): unknown;
  removeListener(event: 'drain', listener: () => void): unknown;
}

interface Entry {
  /** The message as UTF-8 (a string is encoded when it has to wait, see send). */
  data: Uint8Array;
  resolve(): void;
  reject(err: Error): void;
  timer?: ReturnType<typeof setTimeout>;
}

export class QueueDeadlineError extends HookgateError<'QUEUE_DEADLINE'> {
  constructor(message: string) {
    super('QUEUE_DEADLINE', message);
    this.name = 'QueueDeadlineError';
  }
}

/**
 * The gateway's side of a hook's stdin. A stream takes whatever it is given and holds it in memory
 * until the pipe accepts it, so a hook that stops reading would make the gateway keep every call
 * forever. Here messages go to the stream only while it is not full (`write()` returned true, or
 * `'drain'` came since); the rest wait in order in this queue, where a message whose deadline passes
 * is taken out again (its call has been answered by then) and its memory released. At most one
 * message plus the stream's own small buffer ever sits out of reach in the stream.
 */
export class StdinQueue {
  private readonly entries: Entry[] = [];
  private queuedBytes = 0;
  private full = false;
  private stallTimer?: ReturnType<typeof setTimeout>;
  private stopped = false;

  constructor(
    private readonly sink: DrainableSink,
    /** Called once when the stream has stayed full this long (the hook stopped reading); 0: never. */
    private readonly stallMs: number,
    private readonly onstall: () => void,
  ) {}

  /** Bytes the gateway holds for this hook: its queue and what the stream has not passed on yet. */
  get bytes(): number {
    return this.queuedBytes + this.sink.writableLength;
  }

  /**
   * Settles when the message is handed to the stream, or rejects when its deadline (ms from now)
   * passes first or the queue is stopped. Handed over at once (the usual case), it returns SENT.
   */
  send(text: string | Uint8Array, deadlineMs?: number): Promise<void> {
    if (this.stopped) return Promise.reject(new Error('hook stdin is closed'));
    if (!this.full && this.entries.length === 0) {
      this.write(text);
      return SENT;
    }
    // A message that waits is held as bytes outside the JS heap: as a string it kept the client's
    // whole message alive (the params are a slice of it) plus its flattened copy, which the
    // young-generation collector copied at every scavenge while the hook caught up (with 64 calls
    // of 64 KiB in flight, most of them wait here). The encoding is the one the write would do.
    const data = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    return new Promise<void>((resolve, reject) => {
      const entry: Entry = { data, resolve, reject };
      if (deadlineMs !== undefined) {
        entry.timer = setTimeout(() => {
          if (!this.remove(entry)) return;
          reject(
            new QueueDeadlineError(
              `deadline passed after ${deadlineMs} ms while waiting for the hook's stdin`,
            ),
          );
        }, deadlineMs);
      }
      this.entries.push(entry);
      this.queuedBytes += data.length;
    });
  }

  /** The pipe is gone: what waits fails, nothing more is taken. */
  stop(reason: string): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.stallTimer);
    this.sink.removeListener('drain', this.drained);
    const waiting = this.entries.splice(0);
    this.queuedBytes = 0;
    for (const e of waiting) {
      clearTimeout(e.timer);
      e.reject(new Error(reason));
    }
  }

  private write(chunk: string | Uint8Array): void {
    if (this.sink.write(chunk)) return;
    this.full = true;
    this.sink.once('drain', this.drained);
    if (this.stallMs > 0) this.stallTimer = setTimeout(this.onstall, this.stallMs);
  }

  private readonly drained = (): void => {
    this.full = false;
    clearTimeout(this.stallTimer);
    while (!this.full && !this.stopped) {
      const e = this.entries.shift();
      if (!e) return;
      clearTimeout(e.timer);
      this.queuedBytes -= e.data.length;
      this.write(e.data);
      e.resolve();
    }
  };

  private remove(entry: Entry): boolean {
    const i = this.entries.indexOf(entry);
    if (i === -1) return false;
    this.entries.splice(i, 1);
    this.queuedBytes -= entry.data.length;
    return true;
  }
}
