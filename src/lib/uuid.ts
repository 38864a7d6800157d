/**
 * Random (version 4) UUIDs from Web Crypto's CSPRNG, the same code on Node and in workerd.
 *
 * Why not `crypto.randomUUID()`: every call path makes two (the request id and the decision id),
 * and Node builds each by concatenating 20 short strings, about 450 bytes of garbage per UUID.
 * Here random bytes are drawn in batches, the 36 characters are written into one reused byte
 * buffer, and one string is made from it: an eighth of the garbage, and a little faster.
 */

/** UUIDs per draw from the CSPRNG: 4 KiB of random bytes, each byte used once. */
const BATCH = 256;
const random = new Uint8Array(16 * BATCH);
let next = BATCH;

/** Two lowercase hex digits (as character codes) for each byte value. */
const HEX_PAIRS = new Uint8Array(512);
for (let b = 0; b < 256; b++) {
  const pair = b.toString(16).padStart(2, '0');
  HEX_PAIRS[b * 2] = pair.charCodeAt(0);
  HEX_PAIRS[b * 2 + 1] = pair.charCodeAt(1);
}

/** Where each of the 16 bytes' two digits go in `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`. */
const DIGIT_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const text = new TextEncoder().encode('00000000-0000-0000-0000-000000000000');
const decoder = new TextDecoder();

export function randomUuid(): string {
  if (next === BATCH) {
    crypto.getRandomValues(random);
    next = 0;
  }
  const at = next++ * 16;
  // RFC 9562: version 4 in the high nibble of byte 6, variant 10 in the high bits of byte 8.
  random[at + 6] = (random[at + 6] & 0x0f) | 0x40;
  random[at + 8] = (random[at + 8] & 0x3f) | 0x80;
  for (let i = 0; i < 16; i++) {
    const pair = random[at + i] * 2;
    const to = DIGIT_AT[i];
    text[to] = HEX_PAIRS[pair];
    text[to + 1] = HEX_PAIRS[pair + 1];
  }
  return decoder.decode(text);
}
