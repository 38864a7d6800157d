import type { Command } from './command.js';

/**
 * One `hookgate` command as the CLI knows it before it runs: its name, its line in `hookgate --help`
 * and how to load it. Each command's module (and everything it imports) is loaded only when that
 * command runs: Hermes runs `hermes-hook` once per event and PicoClaw starts a `bridge` per
 * session, and neither should pay for the gateway's server, config schema or logger.
 */
export interface CommandEntry {
  name: string;
  /** One line for `hookgate --help`. */
  summary: string;
  // `any`: each command has its own flag types.
  load(): Promise<Command<any>>;
}

/**
 * Every `hookgate` command, in the order `hookgate --help` lists them. To add one: a file in this
 * folder exporting `defineCommand({...})`, and its entry here (a dynamic import, never a static one).
 */
export const commands: readonly CommandEntry[] = [
  {
    name: 'serve',
    summary: 'run the gateway (SIGHUP re-reads the config file)',
    load: async () => (await import('./serve.js')).serve,
  },
  {
    name: 'token',
    summary: "print a dev token signed with a tenant's first HS256 key",
    load: async () => (await import('./token.js')).token,
  },
  {
    name: 'check-config',
    summary: 'validate a config file (secrets and paths included) without starting anything',
    load: async () => (await import('./check-config.js')).checkConfig,
  },
  {
    name: 'replay',
    summary:
      'decide the calls of a decision log again under another config and print what changes (exit 1 when anything does)',
    load: async () => (await import('./replay.js')).replay,
  },
  {
    name: 'rules',
    summary:
      "rules test: run a config's rules and grants against sample calls, without a gateway or a hook (exit 1 when a case fails)",
    load: async () => (await import('./rules.js')).rules,
  },
  {
    name: 'bridge',
    summary: "PicoClaw's stdio hook, forwarding to a remote gateway (token in HOOKGATE_TOKEN)",
    load: async () => (await import('./bridge.js')).bridge,
  },
  {
    name: 'hermes-hook',
    summary: "a Hermes shell hook: Hermes's JSON on stdin to the gateway, Hermes's answer on stdout",
    load: async () => (await import('./hermes-hook.js')).hermesHook,
  },
  {
    name: 'hook',
    summary:
      "the command hook of Codex, Copilot CLI or Gemini CLI: the host's JSON on stdin to the gateway, the host's answer on stdout (--fail-closed: any failure blocks)",
    load: async () => (await import('./hook.js')).hook,
  },
  {
    name: 'setup',
    summary:
      "print a host's settings for one hook (picoclaw: the config.json process hook; claude-code: the .claude/settings.json hooks block; hermes: the config.yaml hooks block; openclaw: the plugin entry, and the plugin with the hook's tools)",
    load: async () => (await import('./setup.js')).setup,
  },
  {
    name: 'keygen',
    summary: 'make an HS256 secret or an Ed25519 key pair, with the config line for it',
    load: async () => (await import('./keygen.js')).keygen,
  },
  {
    name: 'init',
    // DEFAULT_CONFIG_FILE, written out: config-file.ts (node:fs) is for the commands that read one.
    summary: 'write a hookgate.yaml that runs as is (with a secret and a hook); never overwrites',
    load: async () => (await import('./init.js')).init,
  },
];
