import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { HookgateError } from '../../lib/errors.js';
import type { HookRuntime } from '../../config/runtime.js';
import { codexConfigToml } from '../codex/setup.js';
import type { ShimEntry, ShimEvents } from './shim-entries.js';
import { copilotHooksJson } from '../copilot/setup.js';
import { geminiSettings } from '../gemini/setup.js';
import { shellJoin } from '../../node/cli/own-command.js';
import { GATEWAY_MARGIN_MS, hookRouteUrl, TOKEN_ENV } from '../shared/setup-common.node.js';

export const COMMAND_SETUP_HOSTS = ['codex', 'copilot', 'gemini'] as const;
export type CommandSetupHost = (typeof COMMAND_SETUP_HOSTS)[number];

/** The host's config for one hook (stdout) and what to do with it (stderr lines). */
export interface CommandHostSetup {
  text: string;
  notes: string[];
  /** Where `--write` puts it, and how. */
  target: { file: string; write: (text: string) => string };
}

/** Replaces a file by a whole new one (written beside it, then renamed): never half written. */
function replaceFile(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.hookgate-${process.pid}`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, file);
}

/**
 * Codex: appended to config.toml. The trust keys number the groups from 0, so a file that already
 * has hooks is refused (the printed block says what to merge by hand).
 */
function appendCodex(file: string) {
  return (text: string): string => {
    const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
    if (/^\s*\[+\s*hooks[.\]]/m.test(old))
      throw new HookgateError(
        'CONFLICT',
        `${file} already has hooks: the trust entries number the groups from 0, so merge the printed block by hand (without --write)`,
      );
    replaceFile(file, `${old}${old === '' || old.endsWith('\n') ? '' : '\n'}\n${text}`);
    return `appended the hooks and their trust entries to ${file}`;
  };
}

/** Gemini: merged into settings.json, replacing this hook's own entries (by name), keeping the rest. */
function mergeGemini(file: string, name: string) {
  return (text: string): string => {
    let settings: Record<string, unknown> = {};
    if (existsSync(file)) {
      try {
        settings = JSON.parse(readFileSync(file, 'utf8'));
      } catch (err) {
        throw new HookgateError(
          'CONFLICT',
          `${file} is not plain JSON (${(err as Error).message}): merge by hand`,
        );
      }
    }
    const ours = (JSON.parse(text) as { hooks: Record<string, unknown[]> }).hooks;
    const hooks = (
      typeof settings.hooks === 'object' && settings.hooks !== null ? settings.hooks : {}
    ) as Record<string, unknown>;
    const isOurs = (group: unknown) =>
      Array.isArray((group as { hooks?: unknown })?.hooks) &&
      (group as { hooks: { name?: unknown }[] }).hooks.some((h) => h?.name === name);
    for (const event of ['BeforeTool', 'AfterTool']) {
      const kept = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]).filter((g) => !isOurs(g)) : [];
      const all = [...kept, ...(ours[event] ?? [])];
      if (all.length > 0) hooks[event] = all;
      else delete hooks[event];
    }
    replaceFile(file, `${JSON.stringify({ ...settings, hooks }, null, 2)}\n`);
    return `merged the hooks named ${name} into ${file}`;
  };
}

/**
 * One `hookgate hook` entry: the shim's deadline lets the gateway answer by the hook's failure mode
 * first (the hook's deadlines plus a margin), the host's timeout sits above the shim's deadline so
 * the shim always decides (the hosts run the tool when they give up), and `--fail-closed` goes on
 * the guarding events of a hook that fails closed.
 */
function entry(
  command: readonly string[],
  host: CommandSetupHost,
  url: string,
  budgetMs: number,
  failClosed: boolean,
): ShimEntry {
  const deadlineMs = budgetMs + GATEWAY_MARGIN_MS;
  const argv = [...command, 'hook', '--host', host, '--url', url, '--timeout-ms', String(deadlineMs)];
  if (failClosed) argv.push('--fail-closed');
  return { command: shellJoin(argv), deadlineMs, hostTimeoutS: Math.ceil(deadlineMs / 1000) + 2 };
}

export function shimEvents(
  hook: HookRuntime,
  host: CommandSetupHost,
  baseUrl: string,
  command: readonly string[],
): ShimEvents {
  const url = hookRouteUrl(baseUrl, hook);
  const closed = hook.onFailure === 'closed';
  const tool = hook.modes.has('tool');
  const approve = hook.modes.has('approve');
  const events: ShimEvents = {};
  if (host === 'copilot') {
    // preToolUse carries the approval too: asked for either mode, both calls within its deadline.
    if (tool || approve) {
      const budget = (tool ? hook.timeoutMs : 0) + (approve ? hook.approvalTimeoutMs : 0);
      events.beforeTool = entry(command, host, url, budget, closed);
    }
  } else if (tool) events.beforeTool = entry(command, host, url, hook.timeoutMs, closed);
  if (tool) events.afterTool = entry(command, host, url, hook.timeoutMs, false);
  if (host === 'codex' && approve) events.approve = entry(command, host, url, hook.approvalTimeoutMs, closed);
  return events;
}

export async function commandHostSetup(
  host: CommandSetupHost,
  hook: HookRuntime,
  baseUrl: string,
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  tokenCommand: string,
): Promise<CommandHostSetup> {
  const events = shimEvents(hook, host, baseUrl, command);
  const token = `export ${TOKEN_ENV} where the host runs (${tokenCommand}): the host passes its environment to the hook, and the token is in no file`;
  const notes: string[] = [];
  if (!events.beforeTool)
    notes.push(
      `hook "${hook.name}" has no mode this host can ask before a tool runs (tool${host === 'copilot' ? ' or approve' : ''})`,
    );
  if (hook.onFailure !== 'closed')
    notes.push('the hook fails open: when the gateway cannot answer, the host runs the tool');
  if (host === 'codex') {
    const home = resolve(env.CODEX_HOME || join(homedir(), '.codex'));
    const file = join(home, 'config.toml');
    notes.push(
      `append this to ${file} (the trust entries name that file; keep these the only hooks of their events there, and re-run setup after any change: the hashes cover the commands)`,
      token,
    );
    return { text: await codexConfigToml(events, file), notes, target: { file, write: appendCodex(file) } };
  }
  const home = env.HOME || homedir();
  if (host === 'copilot') {
    const file = join(home, '.copilot', 'hooks', `hookgate-${hook.name}.json`);
    const write = (text: string) => {
      replaceFile(file, text);
      return `wrote ${file}`;
    };
    notes.push(
      `save this as ~/.copilot/hooks/hookgate-${hook.name}.json (user-level: repo-level hooks do not run in a folder Copilot does not trust)`,
      token,
    );
    return { text: `${JSON.stringify(copilotHooksJson(events), null, 2)}\n`, notes, target: { file, write } };
  }
  notes.push(
    'merge this into ~/.gemini/settings.json; headless: gemini -p … --skip-trust --approval-mode yolo (in the default mode the shell tool is not offered)',
    token,
  );
  const file = join(home, '.gemini', 'settings.json');
  const name = `hookgate-${hook.name}`;
  return {
    text: `${JSON.stringify(geminiSettings(events, name), null, 2)}\n`,
    notes,
    target: { file, write: mergeGemini(file, name) },
  };
}
