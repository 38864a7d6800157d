/**
 * Newline-delimited JSON framing over bytes, with a hard cap per line. A line over the cap is
 * dropped whole (its bytes are skipped up to the next newline) and reported, so one runaway message
 * can neither grow memory without bound nor desynchronise the stream. A trailing `\r` is tolerated,
 * as PicoClaw's bufio.Scanner does. Runtime-neutral: bytes in, strings out.
 */
const NEWLINE = 0x0a;
const decoder = new TextDecoder();

export class LineSplitter {
  private parts: Uint8Array[] = [];
  private size = 0;
  private discarding = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly online: (line: string) => void,
    private readonly onoversize: (bytes: number) => void,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      this.append(chunk.subarray(start, nl));
      this.finishLine();
      start = nl + 1;
    }
  }

  private append(piece: Uint8Array): void {
    if (piece.length === 0) return;
    this.size += piece.length;
    if (this.discarding) return;
    if (this.size > this.maxLineBytes) {
      this.discarding = true;
      this.parts = [];
      return;
    }
    this.parts.push(piece);
  }

  private finishLine(): void {
    if (this.discarding) {
      const size = this.size;
      this.reset();
      this.onoversize(size);
      return;
    }
    const parts = this.parts;
    const size = this.size;
    this.reset();
    if (size === 0) return;
    let bytes: Uint8Array;
    if (parts.length === 1) {
      bytes = parts[0];
    } else {
      bytes = new Uint8Array(size);
      let offset = 0;
      for (const p of parts) {
        bytes.set(p, offset);
        offset += p.length;
      }
    }
    let line = decoder.decode(bytes);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim().length > 0) this.online(line);
  }

  private reset(): void {
    this.parts = [];
    this.size = 0;
    this.discarding = false;
  }
}

// Re-exported where the framing's users have always found them.
export { fitsUtf8, utf8Length } from './utf8-length.js';
