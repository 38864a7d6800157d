import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CODEX_BIN, fakeModelToml } from './run-codex.js';

/**
 * One turn of the real Codex through `codex app-server` (JSON-RPC over stdio), the headless mode
 * where Codex still asks for approvals: `codex exec` runs with approval `never` whatever the config
 * says, so its PermissionRequest hooks never fire. This driver is the app-server's client: it
 * starts a thread with the approval policy and sandbox given, starts a turn, answers every approval
 * request Codex sends it with a refusal (recording it), and returns when Codex says the turn
 * completed. `rules` is an execpolicy file (`$CODEX_HOME/rules/default.rules`): with the sandbox
 * off, a `decision = "prompt"` rule is what makes Codex ask before a command.
 */
export interface AppServerRun {
  /** The approval requests Codex sent the client (`item/commandExecution/requestApproval` …). */
  approvalRequests: { method: string; params: Record<string, any> }[];
  /** `hook/completed` runs, as Codex reported them. */
  hookRuns: { eventName: string; status: string }[];
  /** Commands Codex ran (`item/completed` of type commandExecution): command and exit code. */
  commands: { command: string; exitCode: number | null; status: string }[];
  turnStatus: string | undefined;
  stderr: string;
}

export async function runCodexAppServer(opts: {
  hooksToml: (configFile: string) => Promise<string>;
  rules: string;
  modelUrl: string;
  token: string;
  approvalPolicy: string;
  sandbox: string;
  timeoutMs?: number;
}): Promise<AppServerRun> {
  const root = mkdtempSync(join(tmpdir(), 'hookgate-codex-app-'));
  const run: AppServerRun = {
    approvalRequests: [],
    hookRuns: [],
    commands: [],
    turnStatus: undefined,
    stderr: '',
  };
  try {
    const home = join(root, 'home');
    const codexHome = join(home, '.codex');
    const project = join(root, 'project');
    mkdirSync(join(codexHome, 'rules'), { recursive: true });
    mkdirSync(project);
    const configFile = join(codexHome, 'config.toml');
    writeFileSync(configFile, [...fakeModelToml(opts.modelUrl), await opts.hooksToml(configFile)].join('\n'));
    writeFileSync(join(codexHome, 'rules', 'default.rules'), opts.rules);
    const child = spawn(CODEX_BIN, ['app-server'], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: root,
        CODEX_HOME: codexHome,
        OPENAI_API_KEY: 'dummy-key-for-a-fake-model',
        HOOKGATE_TOKEN: opts.token,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr.on('data', (b) => {
      run.stderr += b;
    });
    let nextId = 0;
    const pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
    const exited = new Promise<void>((r) =>
      child.on('close', () => {
        for (const p of pending.values())
          p.reject(new Error(`codex app-server exited: ${run.stderr.slice(-500)}`));
        r();
      }),
    );
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const request = (method: string, params: unknown) =>
      new Promise<any>((resolve, reject) => {
        const id = ++nextId;
        pending.set(id, { resolve, reject });
        send({ id, method, params });
      });
    let turnDone!: () => void;
    const completed = new Promise<void>((r) => {
      turnDone = r;
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      let m: any;
      try {
        m = JSON.parse(line);
      } catch {
        return;
      }
      if (m.id !== undefined && typeof m.method === 'string') {
        // A request from Codex: an approval. Refused, the way a person saying no would.
        run.approvalRequests.push({ method: m.method, params: m.params });
        const offered: unknown[] = m.params?.availableDecisions ?? ['decline'];
        send({ id: m.id, result: { decision: offered.includes('decline') ? 'decline' : 'cancel' } });
        return;
      }
      if (m.id !== undefined) {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (m.error) p?.reject(new Error(`${JSON.stringify(m.error)}`));
        else p?.resolve(m.result);
        return;
      }
      if (m.method === 'hook/completed')
        run.hookRuns.push({ eventName: m.params.run.eventName, status: m.params.run.status });
      if (m.method === 'item/completed' && m.params.item?.type === 'commandExecution')
        run.commands.push({
          command: m.params.item.command,
          exitCode: m.params.item.exitCode,
          status: m.params.item.status,
        });
      if (m.method === 'turn/completed') {
        run.turnStatus = m.params.turn?.status;
        turnDone();
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    try {
      await request('initialize', {
        clientInfo: { name: 'hookgate-test', title: null, version: '0' },
        capabilities: null,
      });
      send({ method: 'initialized' });
      const { thread } = await request('thread/start', {
        cwd: project,
        approvalPolicy: opts.approvalPolicy,
        sandbox: opts.sandbox,
      });
      await request('turn/start', {
        threadId: thread.id,
        input: [{ type: 'text', text: 'Run the command.', text_elements: [] }],
      });
      await Promise.race([completed, exited]);
    } finally {
      clearTimeout(timer);
      child.kill();
      await exited;
    }
    return run;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
