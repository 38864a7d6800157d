/**
 * One JSON POST over node:http or node:https, for a command that runs once per host event
 * (`hookgate hermes-hook`): Node's fetch costs a per-process start-up of its own (undici), measured
 * at about 25 ms of CPU and 10 MB more than node:http per run (docs/performance.md). Redirects are
 * never followed (node:http does not): the caller sees the 3xx status itself.
 */

export interface PostAnswer {
  status: number;
  text: string;
}

export function postJson(
  url: string,
  body: string,
  opts: { headers: Record<string, string>; signal: AbortSignal; maxAnswerBytes: number },
): Promise<PostAnswer> {
  // Only the module the URL needs (TLS costs more to load than the whole rest of the command), and
  // as CommonJS: an ES import of node:http builds its namespace, whose lazy WebSocket/EventSource
  // exports then load undici, 10 MB of the memory the command is measured by.
  const { request } = url.startsWith('https:')
    ? process.getBuiltinModule('node:https')
    : process.getBuiltinModule('node:http');
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...opts.headers, 'content-length': String(Buffer.byteLength(body)) },
        signal: opts.signal,
        // One request per process: no pool, and nothing left open to keep the process alive.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > opts.maxAnswerBytes)
            res.destroy(new Error(`answer is over ${opts.maxAnswerBytes} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('the connection closed before the answer ended'));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
