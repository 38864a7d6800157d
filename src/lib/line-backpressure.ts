/** The slice of a readable stream flow control needs. */
export interface PausableInput {
  pause(): unknown;
  resume(): unknown;
}

/** The slice of a writable stream flow control needs: `write` says false when its buffer is full. */
export interface DrainableOutput {
  write(chunk: string): boolean;
  once(event: 'drain', listener: () => void): unknown;
  removeListener(event: 'drain', listener: () => void): unknown;
}

/**
 * Flow control for a line protocol that answers on `output` what it reads on `input` (a hook's
 * stdio, the bridge's). A peer that stops reading our output must not make us buffer answers
 * without end: while the output is full, no new input is taken (the input is paused and lines
 * already read are held back), so nothing more becomes owed; answers already owed are still written,
 * in order, and the stream keeps them until it drains. The peer then blocks writing to us, which is
 * what a pipe does.
 */
export class LineBackpressure {
  private full = false;
  private released = false;
  private readonly held: string[] = [];

  constructor(
    private readonly input: PausableInput,
    private readonly output: DrainableOutput,
    private readonly online: (line: string) => void,
  ) {}

  /** True while the output is full and input is held. */
  get paused(): boolean {
    return this.full;
  }

  get heldLines(): number {
    return this.held.length;
  }

  /** Writes `text`; if the output is now full, takes no more input until it drains. */
  write(text: string): boolean {
    const ok = this.output.write(text);
    if (!ok && !this.full && !this.released) {
      this.full = true;
      this.input.pause();
      this.output.once('drain', this.drained);
    }
    return ok;
  }

  /** A line read from the input: handled now, or once the output has drained. */
  line(text: string): void {
    if (this.full) this.held.push(text);
    else this.online(text);
  }

  /** No drain will come (the output failed, or we are stopping): stop holding input back. */
  release(resumeInput = true): void {
    this.released = true;
    if (this.full) this.drained(resumeInput);
  }

  private readonly drained = (resumeInput = true): void => {
    this.full = false;
    this.output.removeListener('drain', this.drained);
    while (!this.full && this.held.length > 0) this.online(this.held.shift()!);
    if (resumeInput && !this.full) this.input.resume();
  };
}
