import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from '../../helpers/gateway.js';

/** The version scripts/hosts/install-hermes.sh pins (read from it, so it is pinned in one place). */
export const HERMES_VERSION = /^VERSION="([^"]+)"/m.exec(
  readFileSync(join(REPO, 'scripts/hosts/install-hermes.sh'), 'utf8'),
)![1];
const hostsDir =
  process.env.HOOKGATE_HOSTS_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'hookgate-hosts');
export const HERMES_BIN = join(hostsDir, `hermes-${HERMES_VERSION}`, 'bin', 'hermes');
export const hermesInstalled = existsSync(HERMES_BIN);

/**
 * `hookgate` as Hermes runs it here: this checkout through tsx (Hermes splits it without a shell),
 * tsx named by path so it loads from any working directory.
 */
export const HOOKGATE_COMMAND = `${process.execPath} --import ${pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href} ${join(REPO, 'src/node/cli/bin.ts')}`;

export interface HooksTestRun {
  code: number | null;
  stdout: string;
  /** What Hermes made of the hook's output ("parsed (Hermes wire shape)"), null for none. */
  parsed: Record<string, unknown> | null;
  /** The hook's own exit code and stdout as Hermes reports them. */
  hookExit: number | undefined;
  hookStdout: string | undefined;
}

/**
 * `hermes hooks test <event> --for-tool <tool>` with a throwaway HOME and HERMES_HOME holding
 * `config.yaml` = the given hooks block: Hermes's production spawn-and-parse path, no model.
 */
export async function hooksTest(opts: {
  event: string;
  tool?: string;
  hooksYaml: string;
  token: string;
  /** Extra kwargs for the synthetic payload (e.g. `{args: {...}}`). */
  payload?: Record<string, unknown>;
}): Promise<HooksTestRun> {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-hermes-'));
  try {
    const home = join(dir, 'hermes-home');
    mkdirSync(home);
    mkdirSync(join(dir, 'home'));
    writeFileSync(join(home, 'config.yaml'), `${opts.hooksYaml}hooks_auto_accept: true\n`);
    const args = ['hooks', 'test', opts.event];
    if (opts.tool) args.push('--for-tool', opts.tool);
    if (opts.payload) {
      writeFileSync(join(dir, 'payload.json'), JSON.stringify(opts.payload));
      args.push('--payload-file', join(dir, 'payload.json'));
    }
    const child = spawn(HERMES_BIN, args, {
      cwd: REPO,
      env: {
        PATH: process.env.PATH,
        HOME: join(dir, 'home'),
        HERMES_HOME: home,
        HOOKGATE_TOKEN: opts.token,
        NO_COLOR: '1',
      },
    });
    let stdout = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stdout += b;
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const parsedLine = /parsed \(Hermes wire shape\): (.*)$/m.exec(stdout);
    const exit = /exit=(-?\d+)/.exec(stdout);
    const hookOut = /^\s*stdout: (.*)$/m.exec(stdout);
    return {
      code,
      stdout,
      parsed: parsedLine ? JSON.parse(parsedLine[1]) : null,
      hookExit: exit ? Number(exit[1]) : undefined,
      hookStdout: hookOut?.[1],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `hermes -z <prompt>` (one-shot, headless) with `--accept-hooks --yolo`, the model at `modelUrl`
 * (an OpenAI-compatible fake), the hooks block in a throwaway HERMES_HOME, run in a throwaway
 * project directory. Resolves with Hermes's exit code and output.
 */
export async function oneShot(opts: {
  modelUrl: string;
  hooksYaml: string;
  token: string;
  prompt?: string;
}): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-hermes-run-'));
  try {
    const home = join(dir, 'hermes-home');
    mkdirSync(home);
    mkdirSync(join(dir, 'home'));
    mkdirSync(join(dir, 'project'));
    const model = `model:\n  provider: custom\n  default: fake-model\n  base_url: ${opts.modelUrl}\n  api_key: sk-fake\n`;
    writeFileSync(join(home, 'config.yaml'), `${model}${opts.hooksYaml}hooks_auto_accept: true\n`);
    const child = spawn(HERMES_BIN, ['-z', opts.prompt ?? 'run the command', '--accept-hooks', '--yolo'], {
      cwd: join(dir, 'project'),
      env: {
        PATH: process.env.PATH,
        HOME: join(dir, 'home'),
        HERMES_HOME: home,
        HOOKGATE_TOKEN: opts.token,
        NO_COLOR: '1',
      },
    });
    let output = '';
    child.stdout.on('data', (b) => {
      output += b;
    });
    child.stderr.on('data', (b) => {
      output += b;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    return { code, output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
