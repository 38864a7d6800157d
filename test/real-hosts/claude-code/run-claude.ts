import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../../helpers/gateway.js';
import { type FakeModel, startFakeModel } from './fake-anthropic.js';

/** The pinned version lives in one place: the install script. */
export const CLAUDE_CODE_VERSION = /^VERSION="([^"]+)"/m.exec(
  readFileSync(join(REPO, 'scripts/hosts/install-claude-code.sh'), 'utf8'),
)![1];

const hostsDir =
  process.env.HOOKGATE_HOSTS_DIR ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'hookgate-hosts');
export const CLAUDE_BIN = join(
  hostsDir,
  `claude-code-${CLAUDE_CODE_VERSION}`,
  'node_modules',
  '.bin',
  'claude',
);
export const claudeInstalled = existsSync(CLAUDE_BIN);

export interface ClaudeRun {
  exitCode: number | null;
  /** The `-p --output-format json` result. */
  result: Record<string, any>;
  /** The tool results Claude Code sent back to the model. */
  toolResults: FakeModel['toolResults'];
  /** Every tool Claude Code offered the model. */
  offered: FakeModel['offered'];
  /** The project directory the run used (commands run there). */
  project: string;
  stderr: string;
}

export interface RunOptions {
  /** The one Bash command the fake model asks for. */
  command: string;
  /** `.claude/settings.json` hooks block. */
  hooks: Record<string, unknown>;
  token: string;
  /** `--allowedTools` (pre-approval); none: the command needs permission. */
  allowedTools?: string;
  /** MCP servers (`--mcp-config`, `--strict-mcp-config`): the `mcpServers` object. */
  mcpServers?: Record<string, unknown>;
  /** The tool the fake model asks for, instead of Bash with `command`. */
  tool?: { name: string; input: Record<string, unknown> };
}

/**
 * Runs the real Claude Code once, headless, against a fake Messages API on 127.0.0.1, in a
 * throwaway HOME and project whose settings carry the hooks. Nothing reaches the network.
 */
export async function runClaude(opts: RunOptions): Promise<ClaudeRun> {
  const model = await startFakeModel(opts.command, opts.tool);
  const home = mkdtempSync(join(tmpdir(), 'hookgate-cc-'));
  const project = join(home, 'project');
  mkdirSync(join(project, '.claude'), { recursive: true });
  writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify({ hooks: opts.hooks }));
  const args = [
    '-p',
    'Run the hookgate end-to-end test command with the Bash tool.',
    '--output-format',
    'json',
    '--max-turns',
    '4',
  ];
  if (opts.allowedTools) args.push('--allowedTools', opts.allowedTools);
  if (opts.mcpServers) {
    const file = join(home, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: opts.mcpServers }));
    args.push('--mcp-config', file, '--strict-mcp-config');
  }
  try {
    const child = spawn(CLAUDE_BIN, args, {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sk-ant-hookgate-e2e-dummy',
        HOOKGATE_TOKEN: opts.token,
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        // MCP tools are offered to the model directly, not deferred behind ToolSearch, so the fake
        // model can ask for one in its first answer.
        ...(opts.mcpServers ? { ENABLE_TOOL_SEARCH: 'false' } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    let result: Record<string, any>;
    try {
      result = JSON.parse(stdout);
    } catch {
      throw new Error(
        `claude printed no JSON result (exit ${exitCode}): ${stdout.slice(0, 500)} ${stderr.slice(0, 500)}`,
      );
    }
    return { exitCode, result, toolResults: model.toolResults, offered: model.offered, project, stderr };
  } finally {
    await model.close();
  }
}

/** Removes the run's throwaway HOME (the test reads the project first). */
export function cleanup(run: ClaudeRun): void {
  rmSync(join(run.project, '..'), { recursive: true, force: true });
}
