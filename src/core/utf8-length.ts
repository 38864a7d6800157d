/**
 * UTF-8 sizes of strings, for checking caps before a write. Runtime-neutral (Node and workerd).
 *
 * The size is what TextEncoder (and Node's stream writes) produce: a surrogate pair is 4 bytes, a
 * lone surrogate becomes U+FFFD, 3 bytes. Long strings are measured by encoding them into one
 * reused scratch buffer with `encodeInto`, which runs natively: a JS loop over every UTF-16 unit
 * cost about 2 µs per KiB, and the stdio backend measures every message that waits for the pipe.
 */

const encoder = new TextEncoder();
/** Big enough that a 64 KiB ASCII message is measured in one `encodeInto`. */
const SCRATCH_BYTES = 64 * 1024;
let scratch: Uint8Array | undefined;
/** Below this many UTF-16 units the loop is cheaper than the call into the encoder. */
const LOOP_MAX_UNITS = 32;

/** Whether a string's UTF-8 form fits in `max` bytes; most are settled by their length alone. */
export function fitsUtf8(s: string, max: number): boolean {
  // A UTF-16 unit never takes more than 3 bytes, nor fewer than 1.
  if (s.length * 3 <= max) return true;
  if (s.length > max) return false;
  return utf8Length(s) <= max;
}

/** UTF-8 size of a string, as TextEncoder would write it. */
export function utf8Length(s: string): number {
  if (s.length <= LOOP_MAX_UNITS) return utf8LengthByLoop(s);
  scratch ??= new Uint8Array(SCRATCH_BYTES);
  let bytes = 0;
  let rest = s;
  for (;;) {
    // encodeInto stops before a character that does not fit whole, so a pair is never split.
    const { read, written } = encoder.encodeInto(rest, scratch);
    bytes += written;
    if (read >= rest.length) return bytes;
    rest = rest.slice(read);
  }
}

/** The same count in plain JS, one UTF-16 unit at a time (short strings; and the reference). */
export function utf8LengthByLoop(s: string): number {
  let bytes = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3; // BMP, or a lone surrogate written as U+FFFD
  }
  return bytes;
}
