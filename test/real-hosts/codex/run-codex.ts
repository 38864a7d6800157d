import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/gateway.js';

/** The version scripts/hosts/install-codex.sh pins (read from it, so it is pinned in one place). */
export const CODEX_VERSION = /^VERSION="([^"]+)"/m.exec(
  readFileSync(join(REPO, 'scripts/hosts/install-codex.sh'), 'utf8'),
)![1];
const hostsDir =
  process.env.HOOKGATE_HOSTS_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'hookgate-hosts');
export const CODEX_BIN = join(hostsDir, `codex-${CODEX_VERSION}`, 'node_modules', '.bin', 'codex');
export const codexInstalled = existsSync(CODEX_BIN);

/** The config.toml lines that point Codex at the fake Responses API. */
export function fakeModelToml(modelUrl: string): string[] {
  return [
    'model = "hookgate-fake"',
    'model_provider = "hookgate"',
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[model_providers.hookgate]',
    'name = "hookgate fake"',
    `base_url = ${JSON.stringify(modelUrl)}`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ];
}

export interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `codex exec` headless with a throwaway CODEX_HOME whose config.toml points the model at the fake
 * Responses API and appends `hooksToml` (what setup codex prints for that CODEX_HOME: the hooks and
 * their trust entries), as the captures in test/fixtures/codex/ were run. `prepare` then gets the
 * file (e.g. to run `setup codex --write` into it); `config` is the file as Codex read it.
 */
export async function runCodex(opts: {
  /** Builds the hooks block for the config file it will be in. */
  hooksToml?: (configFile: string, codexHome: string) => Promise<string>;
  /** More config.toml lines, after the model's and before the hooks. */
  extraToml?: (root: string) => string[];
  prepare?: (configFile: string, codexHome: string, root: string) => Promise<void>;
  /** Approval and sandbox flags of `codex exec` (default: both off). */
  execFlags?: string[];
  modelUrl: string;
  token: string;
  timeoutMs?: number;
}): Promise<CodexRun & { config: string }> {
  const root = mkdtempSync(join(tmpdir(), 'hookgate-codex-'));
  try {
    const home = join(root, 'home');
    const codexHome = join(home, '.codex');
    const project = join(root, 'project');
    mkdirSync(codexHome, { recursive: true });
    mkdirSync(project);
    const configFile = join(codexHome, 'config.toml');
    writeFileSync(
      configFile,
      [
        ...fakeModelToml(opts.modelUrl),
        ...(opts.extraToml?.(root) ?? []),
        opts.hooksToml ? await opts.hooksToml(configFile, codexHome) : '',
      ].join('\n'),
    );
    await opts.prepare?.(configFile, codexHome, root);
    const config = readFileSync(configFile, 'utf8');
    // No sandbox: this machine's bwrap cannot run Codex's helper under a temporary CODEX_HOME.
    const args = [
      'exec',
      '--skip-git-repo-check',
      ...(opts.execFlags ?? ['--dangerously-bypass-approvals-and-sandbox']),
      '--color',
      'never',
      '-C',
      project,
      'Run the command.',
    ];
    const child = spawn(CODEX_BIN, args, {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: root,
        CODEX_HOME: codexHome,
        OPENAI_API_KEY: 'dummy-key-for-a-fake-model',
        HOOKGATE_TOKEN: opts.token,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    const code = await new Promise<number | null>((r) => child.on('close', r));
    clearTimeout(timer);
    return { code, stdout, stderr, config };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
