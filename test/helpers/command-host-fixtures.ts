import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The exchanges captured from Codex 0.169.0, Copilot CLI 1.0.102 and Gemini CLI 0.61.0 running a
 * command hook (test/fixtures/<host>/README.md): what the host wrote on stdin, what the hook
 * printed, what the host did.
 */
export const FIXTURE_DIR = join(import.meta.dirname, '..', 'fixtures');

export interface CommandExchange {
  host: string;
  file: string;
  seq: number;
  event: string;
  /** The stdin bytes as the host wrote them: compact JSON, no trailing newline. */
  stdin: string;
  response: { stdout: unknown; stderr?: string; exitCode: number };
  hostStatus: string | undefined;
}

/** Copilot's `timestamp` is epoch milliseconds; the captures hold the placeholder `"<TIMESTAMP_MS>"` for it. */
function withTimestamp(stdin: Record<string, unknown>): Record<string, unknown> {
  return stdin.timestamp === '<TIMESTAMP_MS>' ? { ...stdin, timestamp: 1_795_000_000_000 } : stdin;
}

export function loadCommandFixtures(host: 'codex' | 'copilot' | 'gemini'): CommandExchange[] {
  const dir = join(FIXTURE_DIR, host);
  const out: CommandExchange[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const o = JSON.parse(line);
      if (o.event === '(run)') continue;
      out.push({
        host,
        file,
        seq: o.seq,
        event: o.event,
        stdin: JSON.stringify(withTimestamp(o.request.stdin)),
        response: o.response,
        hostStatus: o.outcome?.hostRecorded?.[0]?.status,
      });
    }
  }
  return out;
}

/** The exchange `<file prefix>#<seq>` of a host. */
export function exchange(host: 'codex' | 'copilot' | 'gemini', prefix: string, seq = 1): CommandExchange {
  const found = loadCommandFixtures(host).find((e) => e.file.startsWith(prefix) && e.seq === seq);
  if (!found) throw new Error(`no ${host} fixture ${prefix}#${seq}`);
  return found;
}
