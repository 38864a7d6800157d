/**
 * Load-generator clients, one per transport. Each sends JSON-RPC requests built from a template
 * (so a call costs no re-serialisation of the payload on the client side), matches answers by id
 * and checks each answer is the one the weather hook gives (`respond` / `continue`): a path that
 * answers fast by failing shows up as errors, not as speed.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import { type MessageTemplate, requestText } from './messages.js';
import { TextLines } from './text-lines.js';

const EXPECT: Record<string, string> = { small: 'respond', large: 'continue' };

/**
 * The small message as Claude Code sends it to the Claude Code route: a PreToolUse for the weather
 * hook's own tool, whose `respond` leaves as a deny carrying the result text.
 */
export const CLAUDE_CODE_SMALL = JSON.stringify({
  session_id: '6f1c0d2e-0000-4000-8000-000000000001',
  transcript_path: '/home/bench/.claude/projects/bench/6f1c0d2e.jsonl',
  cwd: '/home/bench/project',
  prompt_id: '6f1c0d2e-0000-4000-8000-000000000002',
  permission_mode: 'default',
  effort: { level: 'medium' },
  hook_event_name: 'PreToolUse',
  tool_name: 'get_weather',
  tool_input: { city: 'Berlin' },
  tool_use_id: 'toolu_bench0001',
});
/** Measured once, as the native path's template lengths are: the load generator's work per call stays alike. */
const CLAUDE_CODE_SMALL_BYTES = Buffer.byteLength(CLAUDE_CODE_SMALL);

function checkClaudeCode(client: Client, text: string): void {
  let ok = false;
  try {
    const m = JSON.parse(text) as { hookSpecificOutput?: { permissionDecision?: string } };
    ok = m.hookSpecificOutput?.permissionDecision === 'deny';
    if (!ok) client.lastError = `answered ${text.slice(0, 120)}`;
  } catch {
    client.lastError = `unparseable answer: ${text.slice(0, 120)}`;
  }
  if (!ok) client.errors++;
}

let nextId = 100_000;

export interface Client {
  readonly label: string;
  errors: number;
  lastError?: string;
  call(t: MessageTemplate): Promise<void>;
  close(): Promise<void>;
}

interface Pending {
  resolve: () => void;
  expect: string;
}

function check(client: Client, text: string, expect: string): void {
  let ok = false;
  try {
    const m = JSON.parse(text) as { result?: { action?: string }; error?: { message?: string } };
    ok = m.result?.action === expect;
    if (!ok) client.lastError = m.error?.message ?? `answered ${JSON.stringify(m.result).slice(0, 120)}`;
  } catch {
    client.lastError = `unparseable answer: ${text.slice(0, 120)}`;
  }
  if (!ok) client.errors++;
}

function idOf(text: string): number {
  // Answers are small; the id is near the start. Fall back to a full parse.
  const m = /"id":(\d+)/.exec(text);
  return m ? Number(m[1]) : Number((JSON.parse(text) as { id: unknown }).id);
}

/** One WebSocket connection, many calls in flight. */
export class WsClient implements Client {
  errors = 0;
  lastError?: string;
  private readonly pending = new Map<number, Pending>();

  private constructor(
    readonly label: string,
    private readonly ws: WebSocket,
  ) {
    ws.on('message', (data: Buffer) => {
      const text = data.toString();
      const id = idOf(text);
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      check(this, text, p.expect);
      p.resolve();
    });
    ws.on('close', () => this.failAll('connection closed'));
    ws.on('error', (err) => {
      this.lastError = err.message;
    });
  }

  static open(label: string, url: string, token?: string): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, ['hookgate.v1'], {
        headers: token ? { authorization: `Bearer ${token}` } : {},
        perMessageDeflate: false,
        maxPayload: 64 * 1024 * 1024,
      });
      ws.once('open', () => resolve(new WsClient(label, ws)));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`${label}: upgrade refused ${res.statusCode}`)),
      );
    });
  }

  call(t: MessageTemplate): Promise<void> {
    const id = nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, expect: EXPECT[t.name] });
      this.ws.send(requestText(t, id));
    });
  }

  private failAll(why: string): void {
    for (const p of this.pending.values()) {
      this.errors++;
      this.lastError = why;
      p.resolve();
    }
    this.pending.clear();
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
      setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, 2000).unref();
    });
  }
}

/**
 * HTTP/1.1 POSTs over a keep-alive agent: `sockets` connections, one call in flight on each. With
 * `dialect: 'claude-code'` it posts the small message as Claude Code's PreToolUse instead.
 */
export class HttpClient implements Client {
  errors = 0;
  lastError?: string;
  private readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;

  constructor(
    readonly label: string,
    url: string,
    private readonly path: string,
    private readonly token: string | undefined,
    sockets: number,
    private readonly dialect?: 'claude-code',
  ) {
    const u = new URL(url);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  call(t: MessageTemplate): Promise<void> {
    const id = nextId++;
    const body = this.dialect ? CLAUDE_CODE_SMALL : requestText(t, id);
    const headers: Record<string, string | number> = {
      'content-type': 'application/json',
      'content-length': this.dialect ? CLAUDE_CODE_SMALL_BYTES : t.baseBytes + String(id).length,
    };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    const expect = EXPECT[t.name];
    return new Promise((resolve) => {
      const req = request(
        { agent: this.agent, host: this.host, port: this.port, path: this.path, method: 'POST', headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString();
            if (res.statusCode !== 200) {
              this.errors++;
              this.lastError = `HTTP ${res.statusCode}: ${text.slice(0, 120)}`;
            } else if (this.dialect) checkClaudeCode(this, text);
            else check(this, text, expect);
            resolve();
          });
        },
      );
      req.on('error', (err) => {
        this.errors++;
        this.lastError = err.message;
        resolve();
      });
      req.end(body);
    });
  }

  async close(): Promise<void> {
    this.agent.destroy();
  }
}

/** NDJSON over a child's stdin/stdout, as PicoClaw talks to a hook (or to the bridge). */
export class StdioClient implements Client {
  errors = 0;
  lastError?: string;
  private readonly pending = new Map<number, Pending>();
  private helloDone?: () => void;

  constructor(
    readonly label: string,
    readonly child: ChildProcessWithoutNullStreams,
  ) {
    child.stdout.setEncoding('utf8');
    // Linear in a line's length however it is cut (see text-lines.ts).
    const lines = new TextLines((line) => this.online(line));
    child.stdout.on('data', (chunk: string) => lines.push(chunk));
    child.stdin.on('error', (err) => {
      this.lastError = err.message;
    });
    child.once('exit', (code, signal) => {
      for (const p of this.pending.values()) {
        this.errors++;
        this.lastError = `${label} exited (${signal ?? code})`;
        p.resolve();
      }
      this.pending.clear();
    });
  }

  private online(line: string): void {
    const id = idOf(line);
    if (id === 1) {
      this.helloDone?.();
      return;
    }
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    check(this, line, p.expect);
    p.resolve();
  }

  /** PicoClaw's handshake: hook.hello with id 1. */
  hello(name: string, timeoutMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.label}: no hello answer`)), timeoutMs);
      this.helloDone = () => {
        clearTimeout(timer);
        resolve();
      };
      this.child.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.hello', params: { name, version: 1, modes: ['llm', 'tool'] } })}\n`,
      );
    });
  }

  call(t: MessageTemplate): Promise<void> {
    const id = nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, expect: EXPECT[t.name] });
      this.child.stdin.write(`${requestText(t, id)}\n`);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      child.stdin.end();
    });
  }
}

/** Sequential round trips: `warm` unrecorded calls, then up to `max` calls or `timeMs`. Microseconds. */
export async function sequential(
  client: Client,
  t: MessageTemplate,
  opts: { warm: number; max: number; timeMs: number },
): Promise<number[]> {
  for (let i = 0; i < opts.warm; i++) await client.call(t);
  const samples: number[] = [];
  const deadline = performance.now() + opts.timeMs;
  for (let i = 0; i < opts.max; i++) {
    const t0 = performance.now();
    await client.call(t);
    const t1 = performance.now();
    samples.push((t1 - t0) * 1000);
    if (t1 > deadline) break;
  }
  return samples;
}

/**
 * `workers` calls in flight, spread over `clients` (one client: all multiplexed on it; one client
 * per worker: one call per connection). Stops issuing at `timeMs` or `max` calls and waits for the
 * calls in flight. A stuck call cannot hang the run: after `timeMs + graceMs` the window is given up.
 */
export async function concurrent(
  clients: Client[],
  t: MessageTemplate,
  opts: { workers: number; max: number; timeMs: number; graceMs?: number },
): Promise<{ calls: number; seconds: number; stuck: boolean }> {
  let issued = 0;
  let done = 0;
  const start = performance.now();
  const deadline = start + opts.timeMs;
  let last = start;
  const worker = async (w: number) => {
    const client = clients[w % clients.length];
    while (issued < opts.max && performance.now() < deadline) {
      issued++;
      await client.call(t);
      done++;
      last = performance.now();
    }
  };
  let stuck = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(Array.from({ length: opts.workers }, (_, w) => worker(w))),
    new Promise<void>((resolve) => {
      timer = setTimeout(
        () => {
          stuck = true;
          resolve();
        },
        opts.timeMs + (opts.graceMs ?? 15_000),
      );
    }),
  ]);
  clearTimeout(timer);
  return { calls: done, seconds: (last - start) / 1000, stuck };
}
