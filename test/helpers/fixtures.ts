import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURE_DIR = join(import.meta.dirname, '..', 'fixtures', 'picoclaw');

export interface FixtureLine {
  dir: 'config' | 'host->hook' | 'hook->host' | 'host_effect';
  name?: string;
  config?: { intercept?: string[]; observe?: string[] };
  msg?: Record<string, any>;
  note?: string;
  effect?: Record<string, unknown>;
}

export interface Exchange {
  request: Record<string, any>;
  /** What the hook wrote back for this request, in order (wrong ids included). */
  replies: Record<string, any>[];
}

export interface Transcript {
  file: string;
  lines: FixtureLine[];
  hello: Record<string, any>;
  exchanges: Exchange[];
  notifications: Record<string, any>[];
}

export function loadTranscript(file: string): Transcript {
  const lines = readFileSync(join(FIXTURE_DIR, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as FixtureLine);
  const exchanges: Exchange[] = [];
  const notifications: Record<string, any>[] = [];
  let current: Exchange | undefined;
  for (const line of lines) {
    if (line.dir === 'host->hook' && line.msg) {
      if ('id' in line.msg) {
        current = { request: line.msg, replies: [] };
        exchanges.push(current);
      } else {
        notifications.push(line.msg);
      }
    } else if (line.dir === 'hook->host' && line.msg && current) {
      current.replies.push(line.msg);
    }
  }
  const hello = exchanges.shift();
  if (!hello) throw new Error(`${file}: no hello`);
  return { file, lines, hello: hello.request, exchanges, notifications };
}

export function transcriptFiles(): string[] {
  return readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();
}

/** The reply the host matches to a request: same numeric id; anything else is dropped by PicoClaw. */
export function matchingReply(ex: Exchange): Record<string, any> | undefined {
  return ex.replies.find((r) => typeof r.id === 'number' && r.id === ex.request.id);
}

/**
 * A hook hosting a transcript (test/helpers/transcript-hook.mjs plays its hook side) with every
 * grant on: a fully trusted hook must pass through the gateway unchanged in effect.
 */
export function trustedTranscriptHook(t: Transcript) {
  return {
    backend: {
      type: 'stdio',
      command: [
        process.execPath,
        join(import.meta.dirname, 'transcript-hook.mjs'),
        join(FIXTURE_DIR, t.file),
      ],
    },
    modes: t.hello.params.modes,
    tools: ['get_weather'],
    grants: {
      rewrite_tools: ['exec', 'read_file'],
      rewrite_results: true,
      rewrite_llm_response: true,
      rewrite_messages: true,
      rewrite_model: true,
      conversation_access: true,
    },
    // One transcript's hook never answers a call with its id (20-ignored-hook-lines): that call
    // waits the whole deadline. Every other call is answered at once, but by a real process, which
    // a loaded machine can make take a while: a deadline that tolerates that, and costs 3 s once.
    timeout_ms: 3000,
    approval_timeout_ms: 3000,
  };
}
