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

/** The version scripts/hosts/install-gemini.sh pins (read from it, so it is pinned in one place). */
export const GEMINI_VERSION = /^VERSION="([^"]+)"/m.exec(
  readFileSync(join(REPO, 'scripts/hosts/install-gemini.sh'), 'utf8'),
)![1];
const hostsDir =
  process.env.HOOKGATE_HOSTS_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'hookgate-hosts');
export const GEMINI_BIN = join(hostsDir, `gemini-${GEMINI_VERSION}`, 'node_modules', '.bin', 'gemini');
export const geminiInstalled = existsSync(GEMINI_BIN);

export interface GeminiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  files: string[];
}

/**
 * `gemini -p … --skip-trust --approval-mode yolo` (in the default mode the shell tool is not
 * offered headless) with a throwaway HOME whose `~/.gemini/settings.json` holds `settings` (the
 * hooks block setup prints) and a dummy API key, the model at `GOOGLE_GEMINI_BASE_URL`, as the
 * captures in test/fixtures/gemini/ were run.
 */
export async function runGemini(opts: {
  settings: Record<string, unknown>;
  modelUrl: string;
  token: string;
  timeoutMs?: number;
}): Promise<GeminiRun> {
  const root = mkdtempSync(join(tmpdir(), 'hookgate-gemini-'));
  try {
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
        ...opts.settings,
      }),
    );
    // A model named, so Gemini does not first ask a classifier which model to route to.
    const args = [
      '-p',
      'Run the command the tool call asks for.',
      '--skip-trust',
      '--approval-mode',
      'yolo',
      '-m',
      'gemini-2.5-flash',
    ];
    const child = spawn(GEMINI_BIN, args, {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: root,
        GEMINI_API_KEY: 'dummy-key-for-a-fake-model',
        GOOGLE_GEMINI_BASE_URL: opts.modelUrl,
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
