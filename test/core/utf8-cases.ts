/**
 * UTF-8 sizes as TextEncoder writes them, shared by the Node suite (test/core/utf8-length.test.ts)
 * and the workerd one (test/worker/utf8-length.test.ts): the count decides caps on both runtimes.
 * Each string is also measured at lengths past the short-string loop and past the scratch buffer.
 */
export const UTF8_CASES: readonly (readonly [name: string, text: string, bytes: number])[] = [
  ['empty', '', 0],
  ['ascii', 'hello', 5],
  ['two-byte', 'é', 2],
  ['three-byte', '€', 3],
  ['astral (surrogate pair)', '😀', 4],
  ['mixed', 'a€😀é', 10],
  ['lone high surrogate at the end', 'a\ud800', 4],
  ['lone high surrogate before ASCII', '\ud800a', 4],
  ['lone high surrogate before a two-byte char', '\ud800é', 5],
  ['two high surrogates, then a low one', '\ud800\ud800\udc00', 7],
  ['lone low surrogate', '\udc00', 3],
  ['low before high (no pair)', 'x\udc00\ud800x', 8],
  ['U+FFFF and U+0800 edges', '\uffff\u0800\u07ff\u007f', 9],
];

/** Every case as a long string too: repeated past the short-string loop and a 64 KiB buffer. */
export function longCases(): [name: string, text: string, bytes: number][] {
  const out: [string, string, number][] = [];
  for (const [name, text, bytes] of UTF8_CASES) {
    if (text === '') continue;
    for (const times of [40, Math.ceil(70_000 / text.length)]) {
      out.push([`${name} ×${times}`, text.repeat(times), bytes * times]);
    }
    // A pair straddling where one encodeInto chunk ends and the next begins.
    const pad = 'x'.repeat(64 * 1024 - 1);
    const bytesPad = pad.length;
    out.push([`${name} after 64 KiB − 1 of ASCII`, pad + text + pad, 2 * bytesPad + bytes]);
  }
  return out;
}
