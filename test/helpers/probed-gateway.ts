/**
 * A real `hookgate serve` process with a probe loaded by `--import` (string-mode-probe.mjs,
 * loaded-packages-probe.mjs): the probe answers SIGUSR2 with one `name=value` line on stdout, so a
 * test can ask the running gateway something only its own process can see.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './gateway.js';

const BIN = join(REPO, 'bin', 'hookgate.js');

export interface ProbedGateway {
  url: string;
  /** Sends SIGUSR2 and resolves with the value of the probe's next `name=…` line. */
  ask(name: string): Promise<string>;
  kill(): void;
}

/**
 * Starts the gateway with `serveArgs` under `probe` (and `nodeFlags`), and resolves once it logs
 * "hookgate listening"; rejects with its output if it exits first.
 */
export function serveProbed(
  probe: string,
  serveArgs: string[],
  nodeFlags: string[] = [],
): Promise<ProbedGateway> {
  const proc: ChildProcess = spawn(
    process.execPath,
    [...nodeFlags, '--import', probe, BIN, 'serve', ...serveArgs],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  let partial = '';
  const seen: string[] = [];
  let waiting: { name: string; resolve: (value: string) => void; reject: (err: Error) => void } | undefined;
  return new Promise((resolve, reject) => {
    proc.on('exit', (code) => {
      const err = new Error(`gateway exited (${code}):\n${seen.join('\n')}\n${partial}\n${stderr}`);
      reject(err); // before it listened
      waiting?.reject(err); // while a question was open
    });
    proc.stderr?.on('data', (b) => {
      stderr += b;
    });
    proc.stdout?.on('data', (b) => {
      const lines = (partial + b).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        seen.push(line);
        if (line.includes('"msg":"hookgate listening"')) {
          resolve({
            url: (JSON.parse(line) as { url: string }).url,
            ask: (name) =>
              new Promise((answer, fail) => {
                waiting = { name, resolve: answer, reject: fail };
                proc.kill('SIGUSR2');
              }),
            kill: () => proc.kill('SIGKILL'),
          });
        } else if (waiting && line.startsWith(`${waiting.name}=`)) {
          const { name, resolve: answer } = waiting;
          waiting = undefined;
          answer(line.slice(name.length + 1));
        }
      }
    });
  });
}
