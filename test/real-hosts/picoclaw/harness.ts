import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/gateway.js';

/**
 * Drives the real PicoClaw (`picoclaw agent -m … -s …`, headless, one turn) against a fake
 * OpenAI-compatible model on 127.0.0.1 and a throwaway PICOCLAW_HOME. The binary is the one
 * scripts/hosts/install-picoclaw.sh built; its version is read from that script, the one place
 * it is pinned.
 */

export const PICOCLAW_VERSION = /^PICOCLAW_VERSION="([^"]+)"/m.exec(
  readFileSync(join(REPO, 'scripts', 'hosts', 'install-picoclaw.sh'), 'utf8'),
)![1];

const hostsDir =
  process.env.HOOKGATE_HOSTS_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'hookgate-hosts');
export const PICOCLAW_BIN = join(hostsDir, `picoclaw-${PICOCLAW_VERSION}`, 'picoclaw');

/** Why the suite cannot run, or undefined. Under CI a missing host fails the suite instead. */
export function picoclawMissing(): string | undefined {
  if (existsSync(PICOCLAW_BIN)) return undefined;
  const reason = `PicoClaw ${PICOCLAW_VERSION} is not installed at ${PICOCLAW_BIN}: run bash scripts/hosts/install-picoclaw.sh`;
  if (process.env.CI) throw new Error(reason);
  return reason;
}

type Json = Record<string, any>;

export interface ToolCallScript {
  name: string;
  arguments: Json;
}

/**
 * The model: its first answer asks for the scripted tool calls (all in one batch, which PicoClaw runs
 * one after another); once the conversation holds tool results it records them and finishes.
 */
export class FakeModel {
  readonly requests: Json[] = [];
  /** Per tool call id, the content of the tool message PicoClaw sent back. */
  readonly toolResults = new Map<string, string>();
  /** When the model answered with its tool calls. */
  toolCallsAnsweredAt = 0;
  /** When the model was asked again with the tool results. */
  resultsReceivedAt = 0;
  private server: Server | undefined;
  url = '';

  constructor(private readonly calls: ToolCallScript[]) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404).end();
          return;
        }
        const request = JSON.parse(body) as Json;
        this.requests.push(request);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(this.answer(request)));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  private answer(request: Json): Json {
    const messages = (request.messages ?? []) as Json[];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const results = messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
    if (results.length === 0) {
      this.toolCallsAnsweredAt = Date.now();
      return completion({
        role: 'assistant',
        content: '',
        tool_calls: this.calls.map((c, i) => ({
          id: `call_${i + 1}`,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.arguments) },
        })),
      });
    }
    this.resultsReceivedAt ||= Date.now();
    for (const m of results) this.toolResults.set(m.tool_call_id, String(m.content));
    return completion({ role: 'assistant', content: 'all done' });
  }

  /** The tool result the model received for the i-th scripted call (0-based). */
  result(i: number): string | undefined {
    return this.toolResults.get(`call_${i + 1}`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function completion(message: Json): Json {
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'fake',
    choices: [{ index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** One entry of PicoClaw's `hooks.processes` (argv, no shell). */
export interface ProcessHook {
  command: string[];
  env?: Record<string, string>;
  intercept: string[];
  priority?: number;
}

/** A process hook that is `hookgate bridge` to one gateway hook (node found by absolute path). */
export interface BridgeHookOptions {
  /** ws://…/v1/tenants/T/hooks/H/ws */
  url: string;
  token: string;
  intercept: string[];
  priority?: number;
  /** Extra `hookgate bridge` flags, e.g. ['--on-failure', 'closed']. */
  flags?: string[];
}

export function bridgeHook(opts: BridgeHookOptions): ProcessHook {
  return {
    command: [
      process.execPath,
      join(REPO, 'bin', 'hookgate.js'),
      'bridge',
      '--url',
      opts.url,
      ...(opts.flags ?? []),
    ],
    env: { HOOKGATE_TOKEN: opts.token },
    intercept: opts.intercept,
    priority: opts.priority,
  };
}

/** A config.json PicoClaw accepts (it refuses unknown keys) with these process hooks. */
export function picoclawConfig(home: string, modelUrl: string, hooks: Record<string, ProcessHook>): Json {
  return {
    version: 3,
    agents: {
      defaults: {
        workspace: join(home, 'workspace'),
        restrict_to_workspace: true,
        model_name: 'fake',
        max_tokens: 4096,
        max_tool_iterations: 4,
      },
    },
    model_list: [
      { model_name: 'fake', model: 'openai/fake', api_base: modelUrl, api_keys: ['sk-test'], enabled: true },
    ],
    gateway: { log_level: 'info' },
    hooks: {
      enabled: true,
      defaults: { interceptor_timeout_ms: 5000, approval_timeout_ms: 60000 },
      processes: Object.fromEntries(
        Object.entries(hooks).map(([name, h]) => [
          name,
          {
            enabled: true,
            priority: h.priority ?? 0,
            command: h.command,
            ...(h.env ? { env: h.env } : {}),
            intercept: h.intercept,
          },
        ]),
      ),
    },
  };
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** PicoClaw's log (PICOCLAW_LOG_FILE, JSON lines), parsed where it parses. */
  log: Json[];
  workspace: string;
  ms: number;
}

/** A throwaway PICOCLAW_HOME; `run` is one headless turn. */
export class PicoClawHome {
  readonly dir = mkdtempSync(join(tmpdir(), 'hookgate-picoclaw-'));
  readonly workspace = join(this.dir, 'workspace');
  child: ChildProcess | undefined;

  constructor(config: (home: string) => Json) {
    mkdirSync(this.workspace, { recursive: true });
    writeFileSync(join(this.dir, 'config.json'), JSON.stringify(config(this.dir), null, 2));
  }

  /** `env`: more of PicoClaw's environment, which its process hooks inherit. */
  run(
    message: string,
    session: string,
    timeoutMs = 60_000,
    env: Record<string, string> = {},
  ): Promise<AgentRun> {
    const logFile = join(this.dir, 'picoclaw.log');
    const started = Date.now();
    const child = spawn(PICOCLAW_BIN, ['agent', '-m', message, '-s', session], {
      cwd: this.dir,
      env: {
        PATH: process.env.PATH,
        HOME: this.dir,
        PICOCLAW_HOME: this.dir,
        PICOCLAW_LOG_FILE: logFile,
        NO_COLOR: '1',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (b) => {
      stdout += b;
    });
    child.stderr!.on('data', (b) => {
      stderr += b;
    });
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(
          new Error(`picoclaw agent did not finish in ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`),
        );
      }, timeoutMs);
      child.once('exit', (code) => {
        clearTimeout(timer);
        const log = existsSync(logFile)
          ? readFileSync(logFile, 'utf8')
              .split('\n')
              .filter(Boolean)
              .flatMap((l) => {
                try {
                  return [JSON.parse(l) as Json];
                } catch {
                  return [];
                }
              })
          : [];
        resolve({ code, stdout, stderr, log, workspace: this.workspace, ms: Date.now() - started });
      });
    });
  }

  remove(): void {
    this.child?.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `hookgate serve` as its own process, so a test can kill it mid-turn. */
export class GatewayProcess {
  child: ChildProcess | undefined;
  output = '';

  constructor(
    readonly configPath: string,
    private readonly env: Record<string, string> = {},
  ) {}

  async start(): Promise<void> {
    const child = spawn(
      process.execPath,
      [join(REPO, 'bin', 'hookgate.js'), 'serve', '--config', this.configPath],
      {
        cwd: REPO,
        env: { ...process.env, ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    child.stdout!.on('data', (b) => {
      this.output += b;
    });
    child.stderr!.on('data', (b) => {
      this.output += b;
    });
    const deadline = Date.now() + 20_000;
    while (!/hookgate listening/.test(this.output)) {
      if (child.exitCode !== null || Date.now() > deadline) {
        throw new Error(`hookgate serve did not start:\n${this.output}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  kill(): void {
    this.child?.kill('SIGKILL');
  }
}

/** Polls until `check` holds (or throws after `timeoutMs`). */
export async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
