import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { shellJoin } from '../../../src/node/cli/own-command.js';
import { GEMINI_BIN } from './run-gemini.js';

/**
 * The two ways to run the real Gemini CLI headless where it still asks before a tool runs (`-p`
 * withholds the shell tool outside yolo): its interactive screen in a pseudo-terminal (`script`,
 * rows and columns set, else the screen draws no dialog), read as text until what is awaited
 * appears; and ACP mode (`--acp`, JSON-RPC on stdio), where Gemini asks its client with
 * `session/request_permission`. Both with a throwaway HOME whose settings.json holds `settings`.
 */
interface Home {
  root: string;
  project: string;
  env: NodeJS.ProcessEnv;
}

function makeHome(settings: Record<string, unknown>, modelUrl: string, token: string): Home {
  const root = mkdtempSync(join(tmpdir(), 'hookgate-gemini-i-'));
  const home = join(root, 'home');
  const project = join(root, 'project');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  mkdirSync(project);
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      ...settings,
    }),
  );
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: root,
    TERM: 'xterm-256color',
    GEMINI_API_KEY: 'dummy-key-for-a-fake-model',
    GOOGLE_GEMINI_BASE_URL: modelUrl,
    HOOKGATE_TOKEN: token,
  };
  return { root, project, env };
}

/** The text on a terminal's screen, without its control sequences. */
const ESC = String.fromCharCode(27);
const BEL = String.fromCharCode(7);
const OSC = new RegExp(`${ESC}\\][^${BEL}${ESC}]*(${BEL}|${ESC}\\\\)`, 'g');
const CSI = new RegExp(`${ESC}\\[[0-9;?<>=]*[ -/]*[@-~]`, 'g');
const OTHER = new RegExp(`${ESC}[()][A-Za-z0-9]|${ESC}.`, 'g');
const plain = (s: string) => s.replace(OSC, '').replace(CSI, ' ').replace(OTHER, '');

export interface TtyRun {
  /** Which awaited pattern appeared first (undefined: none before the timeout or the exit). */
  matched: RegExp | undefined;
  /** Whether `untilFile` appeared. */
  fileAppeared: boolean;
  screen: string;
}

/**
 * `gemini -i <prompt>` on a pseudo-terminal; resolves when one of `until` appears on the screen
 * (or Gemini exits, or `timeoutMs` passes), then ends it.
 */
export async function runGeminiTty(opts: {
  settings: Record<string, unknown>;
  flags: string[];
  modelUrl: string;
  token: string;
  until: RegExp[];
  /** Also resolves when this file is created (watched, not polled). */
  untilFile?: string;
  timeoutMs?: number;
}): Promise<TtyRun> {
  const home = makeHome(opts.settings, opts.modelUrl, opts.token);
  let child: ChildProcess | undefined;
  try {
    const gemini = shellJoin([
      GEMINI_BIN,
      '-i',
      'Run the command the tool call asks for.',
      '-m',
      'gemini-2.5-flash',
      '--skip-trust',
      ...opts.flags,
    ]);
    // `script` puts the shell in a session of its own: the shell notes its pid, which Gemini then
    // has (exec), leading a process group with the child Gemini relaunches itself as.
    const pidFile = join(home.root, 'gemini.pid');
    child = spawn(
      'script',
      [
        '-q',
        '-f',
        '-e',
        '-c',
        `stty rows 40 cols 120; echo $$ > ${shellJoin([pidFile])}; exec ${gemini}`,
        '/dev/null',
      ],
      {
        cwd: home.project,
        env: home.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      },
    );
    let raw = '';
    const run: TtyRun = { matched: undefined, fileAppeared: false, screen: '' };
    const file = opts.untilFile;
    const watcher = file ? watch(dirname(file)) : undefined;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, opts.timeoutMs ?? 60_000);
      watcher?.on('change', (_e, name) => {
        if (file && String(name) === basename(file) && existsSync(file)) {
          run.fileAppeared = true;
          clearTimeout(timer);
          resolve();
        }
      });
      const seen = (b: Buffer) => {
        raw += b;
        const text = plain(raw);
        const hit = opts.until.find((re) => re.test(text));
        if (hit && !run.matched) {
          run.matched = hit;
          clearTimeout(timer);
          resolve();
        }
      };
      child!.stdout!.on('data', seen);
      child!.stderr!.on('data', seen);
      child!.on('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    watcher?.close();
    run.screen = plain(raw);
    return run;
  } finally {
    // Gemini's group (it outlives the pseudo-terminal), then script's.
    const pid = Number(
      existsSync(join(home.root, 'gemini.pid')) ? readFileSync(join(home.root, 'gemini.pid'), 'utf8') : '',
    );
    if (pid > 0)
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    if (child?.pid !== undefined && child.exitCode === null) {
      const closed = new Promise((r) => child!.on('close', r));
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await closed;
    }
    rmSync(home.root, { recursive: true, force: true });
  }
}

export interface AcpRun {
  /** `session/request_permission` requests Gemini sent its client. */
  permissionRequests: Record<string, any>[];
  stopReason: string | undefined;
  stderr: string;
}

/**
 * `gemini --acp`: one session, one prompt; every permission request is answered with `answer`
 * (an option id, or cancelled). Resolves with the prompt's end.
 */
export async function runGeminiAcp(opts: {
  settings: Record<string, unknown>;
  modelUrl: string;
  token: string;
  answer: 'proceed_once' | 'cancelled';
  timeoutMs?: number;
}): Promise<AcpRun> {
  const home = makeHome(opts.settings, opts.modelUrl, opts.token);
  const run: AcpRun = { permissionRequests: [], stopReason: undefined, stderr: '' };
  try {
    const child = spawn(GEMINI_BIN, ['--acp', '-m', 'gemini-2.5-flash'], {
      cwd: home.project,
      env: { ...home.env, TERM: undefined, GEMINI_CLI_TRUST_WORKSPACE: 'true' },
      stdio: ['pipe', 'pipe', 'pipe'],
      // Gemini relaunches itself as a child: its whole group is ended, or the pipes stay open.
      detached: true,
    });
    const end = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    child.stderr.on('data', (b) => {
      run.stderr += b;
    });
    let nextId = 0;
    const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
    const exited = new Promise<void>((r) =>
      child.on('close', () => {
        for (const p of pending.values())
          p.reject(new Error(`gemini --acp exited: ${run.stderr.slice(-500)}`));
        r();
      }),
    );
    const send = (m: Record<string, unknown>) =>
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
    const request = (method: string, params: unknown) =>
      new Promise<any>((resolve, reject) => {
        const id = ++nextId;
        pending.set(id, { resolve, reject });
        send({ id, method, params });
      });
    createInterface({ input: child.stdout }).on('line', (line) => {
      let m: any;
      try {
        m = JSON.parse(line);
      } catch {
        return;
      }
      if (m.id !== undefined && typeof m.method === 'string') {
        if (m.method === 'session/request_permission') run.permissionRequests.push(m.params);
        const outcome =
          opts.answer === 'cancelled'
            ? { outcome: 'cancelled' }
            : { outcome: 'selected', optionId: opts.answer };
        send({ id: m.id, result: { outcome } });
        return;
      }
      if (m.id !== undefined) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) p?.reject(new Error(JSON.stringify(m.error)));
        else p?.resolve(m.result);
      }
    });
    const timer = setTimeout(end, opts.timeoutMs ?? 90_000);
    try {
      await request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } },
      });
      const { sessionId } = await request('session/new', { cwd: home.project, mcpServers: [] });
      const done = await request('session/prompt', {
        sessionId,
        prompt: [{ type: 'text', text: 'Run the command the tool call asks for.' }],
      });
      run.stopReason = done?.stopReason;
    } finally {
      clearTimeout(timer);
      end();
      await exited;
    }
    return run;
  } finally {
    rmSync(home.root, { recursive: true, force: true });
  }
}
