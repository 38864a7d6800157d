import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/gateway.js';

/** The version scripts/hosts/install-copilot.sh pins (read from it, so it is pinned in one place). */
export const COPILOT_VERSION = /^VERSION="([^"]+)"/m.exec(
  readFileSync(join(REPO, 'scripts/hosts/install-copilot.sh'), 'utf8'),
)![1];
const hostsDir =
  process.env.HOOKGATE_HOSTS_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'hookgate-hosts');
export const COPILOT_BIN = join(hostsDir, `copilot-${COPILOT_VERSION}`, 'node_modules', '.bin', 'copilot');
export const copilotInstalled = existsSync(COPILOT_BIN);

export interface CopilotRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Files the project folder holds after the run (what a command that writes left). */
  files: string[];
}

/**
 * `copilot -p` headless and offline (BYOK: COPILOT_OFFLINE, COPILOT_PROVIDER_BASE_URL, a dummy
 * key) with a throwaway HOME whose `~/.copilot/hooks/` holds `hooksFile` (user-level hooks run in
 * any folder), as the captures in test/fixtures/copilot/ were run.
 */
export async function runCopilot(opts: {
  hooksFile: Record<string, unknown>;
  modelUrl: string;
  token: string;
  timeoutMs?: number;
}): Promise<CopilotRun> {
  const root = mkdtempSync(join(tmpdir(), 'hookgate-copilot-'));
  try {
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(join(home, '.copilot', 'hooks'), { recursive: true });
    mkdirSync(project);
    writeFileSync(join(home, '.copilot', 'hooks', 'hookgate.json'), JSON.stringify(opts.hooksFile));
    const args = [
      '-p',
      'Run the command the tool call asks for.',
      '--output-format',
      'json',
      '--no-auto-update',
      '--no-ask-user',
      '--no-custom-instructions',
      '--disable-client-telemetry',
    ];
    const child = spawn(COPILOT_BIN, args, {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: root,
        COPILOT_OFFLINE: 'true',
        COPILOT_PROVIDER_BASE_URL: opts.modelUrl,
        COPILOT_PROVIDER_API_KEY: 'dummy-key-for-a-fake-model',
        COPILOT_MODEL: 'hookgate-fake',
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
    return { code, stdout, stderr, files: readdirSync(project) };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
