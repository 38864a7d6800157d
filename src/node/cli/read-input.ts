/**
 * Reads a per-event command's stdin (a Node stream or any async iterable) to its end as UTF-8,
 * refusing more than `max` bytes: a host's hook input has no length header to trust. Imports
 * nothing, so the per-event commands' import graph stays small.
 */
export async function readInputCapped(input: AsyncIterable<Buffer | string>, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > max) throw new Error(`input is over ${max} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
