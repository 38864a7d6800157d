import { PassThrough } from 'node:stream';
import { main } from '../../src/node/cli/cli.js';

/** `hookgate <argv…>` in this process, with streams of its own: the exit code and what it wrote. */
export async function runCli(
  argv: string[],
  io: { env?: NodeJS.ProcessEnv; cwd: string },
): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (b) => {
    out += b;
  });
  stderr.on('data', (b) => {
    err += b;
  });
  const code = await main(argv, { stdout, stderr, env: io.env ?? process.env, cwd: io.cwd });
  return { code, out, err };
}
