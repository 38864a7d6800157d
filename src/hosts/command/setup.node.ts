import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { HookgateError } from '../../lib/errors.js';
import type { HookRuntime } from '../../config/runtime.js';
import { CodexMergeRefused, mergeCodexConfig } from '../codex/config-merge.js';
import { codexConfigToml } from '../codex/setup.js';
import type { ShimEntry, ShimEvents } from './shim-entries.js';
import { copilotHooksJson } from '../copilot/setup.js';
import { geminiSettings } from '../gemini/setup.js';
import { shellJoin, splitCommand } from '../../node/cli/own-command.js';
import { GATEWAY_MARGIN_MS, hookRouteUrl, TOKEN_ENV } from '../shared/setup-common.node.js';

export const COMMAND_SETUP_HOSTS = ['codex', 'copilot', 'gemini'] as const;
export type CommandSetupHost = (typeof COMMAND_SETUP_HOSTS)[number];

/** The host's config for one hook (stdout) and what to do with it (stderr lines). */
export interface CommandHostSetup {
  text: string;
  notes: string[];
  /** Notes about the printed text only (where to put it): `--write` says what it did instead. */
  printNotes?: string[];
  /** Where `--write` puts it, and how: what it did, as a note. */
  target: { file: string; write: (text: string) => string | Promise<string> };
}

/**
 * Replaces a file by a whole new one, never half written: written and synced beside it (through a
 * symlink, beside its target), with the old file's mode (a new one: 0600), then renamed over it.
 */
function replaceFile(file: string, text: string): void {
  const target = existsSync(file) ? realpathSync(file) : file;
  mkdirSync(dirname(target), { recursive: true });
  const mode = existsSync(target) ? statSync(target).mode & 0o7777 : 0o600;
  const temp = join(dirname(target), `.${basename(target)}.hookgate-${process.pid}`);
  rmSync(temp, { force: true });
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    chmodSync(temp, mode); // the umask may have narrowed it
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

/**
 * Whether a Codex hook command is this hook's `hookgate hook --host codex`: its `--url` is this
 * tenant's hook route, at whatever gateway address and however hookgate is started.
 */
function runsHook(hook: HookRuntime): (command: string) => boolean {
  const route = new URL(hookRouteUrl('http://x', hook)).pathname;
  return (command) => {
    let argv: string[];
    try {
      argv = splitCommand(command);
    } catch {
      return false;
    }
    const after = (flag: string) => {
      const k = argv.indexOf(flag);
      return k < 0 ? undefined : argv[k + 1];
    };
    if (!argv.includes('hook') || after('--host') !== 'codex') return false;
    const url = after('--url');
    if (url === undefined || !URL.canParse(url)) return false;
    return new URL(url).pathname.replace(/\/+$/, '') === route;
  };
}

/**
 * Codex: merged into config.toml (src/hosts/codex/config-merge.ts): this hook's groups and trust
 * entries replaced or added, everything else kept as it is; a file it cannot merge is left as it is.
 */
function mergeCodex(file: string, events: ShimEvents, hook: HookRuntime) {
  return async (): Promise<string> => {
    const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
    let text: string;
    try {
      text = await mergeCodexConfig(old, file, events, runsHook(hook));
    } catch (err) {
      if (err instanceof CodexMergeRefused)
        throw new HookgateError('CONFLICT', `${file} was left unchanged: ${err.message}`);
      throw err;
    }
    if (existsSync(file) && text === old)
      return `${file} already has these hooks and their trust entries: unchanged`;
    replaceFile(file, text);
    return `merged the hooks and their trust entries into ${file}`;
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
    notes.push(token);
    const printNotes = [
      `append this to ${file}, or merge it with --write (the trust entries name that file and number the groups from 0: keep these the only hooks of their events there, and re-run setup after any change: the hashes cover the commands)`,
    ];
    return {
      text: await codexConfigToml(events, file),
      notes,
      printNotes,
      target: { file, write: mergeCodex(file, events, hook) },
    };
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
