import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { DecisionsTarget } from '../config/decisions.js';
import type { DecisionOutput } from '../server/decision-log.js';
import type { Logger } from '../server/logger.js';
import { resolvePath } from './config-loader.js';

export interface NodeDecisionOutput {
  output?: DecisionOutput;
  /** Closes the file, if one was opened. */
  close(): Promise<void>;
}

/**
 * server.decisions.to on Node: `stdout` (the same stream as the log lines, told apart by their
 * `schema` field) or `file:PATH` (relative to the config's directory), appended to and opened at
 * the first record. Writes are asynchronous; the DecisionLog bounds what waits for them. A failure
 * is logged when it starts and when it ends, not per batch.
 */
export function nodeDecisionOutput(
  target: DecisionsTarget,
  baseDir: string,
  log: Logger,
): NodeDecisionOutput {
  // `otlp` is the tracing collector's, opened where the tracer is (src/node/server.ts).
  if (target.kind === 'off' || target.kind === 'otlp') return { close: async () => {} };
  let failing = false;
  const report = <T>(p: Promise<T>, where: string): Promise<T> =>
    p.then(
      (v) => {
        if (failing) log.info({ to: where }, 'decision records are being written again');
        failing = false;
        return v;
      },
      (err: unknown) => {
        if (!failing) {
          log.warn(
            { to: where, err: err instanceof Error ? err.message : String(err) },
            'decision records cannot be written; dropping them (hookgate_decision_records_dropped_total)',
          );
        }
        failing = true;
        throw err;
      },
    );
  if (target.kind === 'stdout') {
    return {
      output: (lines) =>
        report(
          new Promise<void>((resolve, reject) =>
            process.stdout.write(`${lines.join('\n')}\n`, (err) => (err ? reject(err) : resolve())),
          ),
          'stdout',
        ),
      close: async () => {},
    };
  }
  const path = resolvePath(baseDir, target.path);
  let handle: ReturnType<typeof open> | undefined;
  return {
    output: (lines) =>
      report(
        (async () => {
          // Opened again after a failure to open (a directory created later, permissions fixed).
          handle ??= open(path, 'a');
          let h: Awaited<ReturnType<typeof open>>;
          try {
            h = await handle;
          } catch (err) {
            handle = undefined;
            throw err;
          }
          await h.appendFile(`${lines.join('\n')}\n`);
        })(),
        `file:${target.path}`,
      ),
    close: async () => {
      const h = await handle?.catch(() => undefined);
      handle = undefined;
      await h?.close();
    },
  };
}

/** SHA-256 hex, synchronously: on Node, Web Crypto's digest is a thread-pool job per call. */
export function nodeSha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
