import { resolve } from 'node:path';
import { HookgateError } from '../../../lib/errors.js';
import { ownCommand, ownShellCommand, shellJoin, splitCommand } from '../own-command.js';
import { claudeCodeSettings } from '../../../hosts/claude-code/setup.node.js';
import {
  COMMAND_SETUP_HOSTS,
  type CommandSetupHost,
  commandHostSetup,
} from '../../../hosts/command/setup.node.js';
import { hookRouteUrl, TOKEN_ENV } from '../../../hosts/shared/setup-common.node.js';
import { loadSetupConfig } from '../../../hosts/shared/setup-config.node.js';
import { hermesHooksYaml, hermesMcpYaml } from '../../../hosts/hermes/setup.node.js';
import { listedByGateway, openClawSetup, writeOpenClawPlugin } from '../../../hosts/openclaw/setup.node.js';
import { picoclawSetup } from '../../../hosts/picoclaw/setup.node.js';
import { defineCommand, usageError } from './command.js';
import { CONFIG_HELP, requireConfigFile } from './config-file.js';

/** Hosts `setup` can print settings for. */
const HOSTS = ['picoclaw', 'claude-code', 'hermes', 'openclaw', ...COMMAND_SETUP_HOSTS] as const;

export const setup = defineCommand({
  name: 'setup',
  help: `usage: hookgate setup picoclaw|claude-code|hermes|openclaw|codex|copilot|gemini [--config FILE] --tenant T --hook H [--url BASE]
         [--command CMD] [--hermes-no-modify] [--out DIR [--force] [--from-gateway]] [--write]
${CONFIG_HELP}
  --tenant T      the tenant
  --hook H        the hook; only the events its modes cover are sent to it
  --url BASE      the gateway's URL as the host reaches it (default: the config's host and port)
  --command CMD   picoclaw, hermes, codex, copilot, gemini: how the host starts hookgate (default: this Node and this
                  hookgate's absolute path, which run whatever the host's PATH; e.g. "hookgate"
                  where hookgate is installed globally on the host's PATH)
  --hermes-no-modify  hermes: the Hermes release has no modify (0.19 and older); a granted rewrite
                  then blocks the call instead of being ignored
  --out DIR       openclaw: write the plugin into DIR, its manifest declaring the hook's tools
  --force         openclaw: write into a DIR that is not empty
  --write         codex, copilot, gemini: install it instead of printing it (Codex: merged into
                  $CODEX_HOME/config.toml, replacing only this hook's groups and trust entries, a
                  file it cannot merge left unchanged; Copilot: ~/.copilot/hooks/hookgate-<hook>.json;
                  Gemini: merged into ~/.gemini/settings.json)
  --from-gateway  openclaw, with --out: describe the tools as the running gateway at --url lists
                  them to ${TOKEN_ENV} (an SDK hook's own schemas, a stdio hook's injected ones)
picoclaw: prints the config.json "hooks" block running \`hookgate bridge\` (the intercepts the hook's
modes cover, --on-failure closed when it fails closed), and for a hook with tools the "tools.mcp"
server serving them; the bridge reads ${TOKEN_ENV} from PicoClaw's environment.
claude-code: prints the "hooks" block on stdout (timeouts above the hook's deadlines, onFailure:
"block" on the guarding events when the hook fails closed or decides approvals) and on stderr how to
give the host its token (${TOKEN_ENV}, expanded by Claude Code through allowedEnvVars).
hermes: prints the config.yaml "hooks:" block running \`hookgate hermes-hook\` (fail_closed: true and
--fail-closed on pre_tool_call when the hook fails closed), and for a hook with tools the
"mcp_servers:" block serving them from its MCP route; the token is ${TOKEN_ENV} in Hermes's
environment.
openclaw: prints the openclaw.json "plugins" block for the hookgate plugin (the hooks the hook's modes
cover, a request limit above its deadline); with --out, writes the plugin with the hook's own tools
(described by the config's tool_definitions), which OpenClaw runs by asking the hook.
codex, copilot, gemini: print the host's hooks running \`hookgate hook\` (--fail-closed when the hook
fails closed; host timeouts above the command's deadline): Codex's config.toml hooks with their
trusted_hash entries, Copilot's user-level hooks file, Gemini's settings.json "hooks" block.`,
  flags: {
    config: { type: 'string' },
    tenant: { type: 'string' },
    hook: { type: 'string' },
    url: { type: 'string' },
    command: { type: 'string' },
    'hermes-no-modify': { type: 'boolean' },
    out: { type: 'string' },
    force: { type: 'boolean' },
    'from-gateway': { type: 'boolean' },
    write: { type: 'boolean' },
  },
  maxPositionals: 1,
  async run({ values, positionals }, io) {
    const host = positionals[0];
    if (!HOSTS.includes(host as (typeof HOSTS)[number]))
      usageError(`setup needs a host, one of: ${HOSTS.join(', ')} (hookgate setup claude-code …)`);
    if (!values.tenant || !values.hook) usageError(`setup ${host} needs --tenant and --hook`);
    if (host !== 'openclaw' && (values.out !== undefined || values.force || values['from-gateway']))
      usageError('--out, --force and --from-gateway are for setup openclaw');
    if (values.write && !COMMAND_SETUP_HOSTS.includes(host as CommandSetupHost))
      usageError('--write is for setup codex, copilot and gemini');
    if (values['from-gateway'] && values.out === undefined)
      usageError('--from-gateway describes the tools of the plugin --out writes: give --out DIR');
    const runsCommand =
      host === 'picoclaw' || host === 'hermes' || COMMAND_SETUP_HOSTS.includes(host as CommandSetupHost);
    if (values.command !== undefined && !runsCommand)
      usageError(
        '--command is for the hosts that run a hookgate command (picoclaw, hermes, codex, copilot, gemini)',
      );
    const command = values.command === undefined ? ownCommand() : commandArgv(values.command);
    if (values.url !== undefined && !/^https?:\/\/[^/]/.test(values.url))
      usageError(`--url must be an http(s) URL, got ${JSON.stringify(values.url)}`);
    const file = requireConfigFile(values.config, io.env, io.cwd);
    // No secret is read: setup prints settings, and the signing secret need not be in its environment.
    const config = loadSetupConfig(file);
    const tenant = config.tenants.get(values.tenant);
    if (!tenant)
      throw new HookgateError('NOT_FOUND', `no tenant ${JSON.stringify(values.tenant)} in the config`);
    const hook = tenant.hooks.get(values.hook);
    if (!hook)
      throw new HookgateError(
        'NOT_FOUND',
        `tenant ${JSON.stringify(values.tenant)} has no hook ${JSON.stringify(values.hook)}`,
      );
    const { host: h, port } = config.server;
    const base = values.url ?? `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
    // What the person runs here, in their shell, to make the host's token.
    const tokenCommand = `${ownShellCommand(io.env)} token ${shellJoin(['--config', file, '--tenant', values.tenant, '--hooks', values.hook])}`;
    if (host === 'picoclaw') {
      const { config: block, raise } = picoclawSetup(hook, base, { command });
      io.stdout.write(`${JSON.stringify(block, null, 2)}\n`);
      const notes: string[] = [];
      if (Object.keys(raise).length > 0)
        notes.push(
          `the hook's deadlines do not fit under PicoClaw's defaults: set hooks.defaults to ${JSON.stringify(raise)}`,
        );
      if (block.tools)
        notes.push(
          'tools.mcp: PicoClaw expands nothing in config.json, so its Authorization header holds the token itself; replace the placeholder',
        );
      notes.push(
        `merge this into PicoClaw's config.json and export ${TOKEN_ENV} where PicoClaw runs: the bridge inherits its environment (${tokenCommand})`,
      );
      io.stderr.write(`${notes.join('\n')}\n`);
      return 0;
    }
    if (host === 'openclaw') {
      let listed: Awaited<ReturnType<typeof listedByGateway>> | undefined;
      if (values['from-gateway']) {
        const token = io.env[TOKEN_ENV];
        if (!token) usageError(`--from-gateway needs the hook's token in ${TOKEN_ENV}`);
        listed = await listedByGateway(hookRouteUrl(base, hook, 'mcp'), token);
      }
      const setup = openClawSetup(hook, base, listed);
      const notes: string[] = [];
      if (values.out !== undefined) {
        const dir = resolve(io.cwd, values.out);
        writeOpenClawPlugin(dir, setup, values.force === true);
        notes.push(
          `wrote the plugin to ${dir}: openclaw plugins install --force --accept-capabilities ${dir}`,
        );
      } else if (setup.tools.length > 0) {
        notes.push(
          `the hook's tools (${setup.tools.map((t) => t.name).join(', ')}) need the plugin written with --out DIR`,
        );
      } else {
        notes.push(
          'install the plugin: openclaw plugins install --force --accept-capabilities <hookgate>/integrations/openclaw',
        );
      }
      if (setup.undescribed.length > 0)
        notes.push(
          `no tool_definitions for ${setup.undescribed.join(', ')}: OpenClaw offers them with any arguments`,
        );
      if (setup.deadlineTooLong)
        notes.push(
          "the hook's deadline does not fit under OpenClaw's 15 s budget: the plugin gives up at 14 s and blocks",
        );
      notes.push(
        `merge this "plugins" block into ~/.openclaw/openclaw.json and export ${TOKEN_ENV} where OpenClaw runs (${tokenCommand})`,
      );
      io.stdout.write(`${JSON.stringify({ plugins: { entries: { hookgate: setup.entry } } }, null, 2)}\n`);
      io.stderr.write(`${notes.join('\n')}\n`);
      return 0;
    }
    if (host === 'hermes') {
      const mcp = hermesMcpYaml(hook, base);
      const hooks = hermesHooksYaml(hook, base, {
        command: shellJoin(command),
        noModify: values['hermes-no-modify'] === true,
      });
      io.stdout.write(hooks + mcp);
      io.stderr.write(
        `put ${mcp ? 'these "hooks:" and "mcp_servers:" blocks' : 'this "hooks:" block'} in Hermes's config.yaml, export ${TOKEN_ENV} where Hermes runs ` +
          `(${tokenCommand}) ` +
          'and accept the hooks once (hermes --accept-hooks, or hooks_auto_accept: true)\n',
      );
      return 0;
    }
    if (COMMAND_SETUP_HOSTS.includes(host as CommandSetupHost)) {
      const out = await commandHostSetup(host as CommandSetupHost, hook, base, command, io.env, tokenCommand);
      if (values.write) out.notes.unshift(await out.target.write(out.text));
      else {
        io.stdout.write(out.text);
        out.notes.unshift(...(out.printNotes ?? []));
      }
      io.stderr.write(`${out.notes.join('\n')}\n`);
      return 0;
    }
    io.stdout.write(`${JSON.stringify(claudeCodeSettings(hook, base), null, 2)}\n`);
    io.stderr.write(
      `put this "hooks" block in .claude/settings.json and export ${TOKEN_ENV} ` + `(${tokenCommand})\n`,
    );
    return 0;
  },
});

function commandArgv(line: string): string[] {
  let argv: string[];
  try {
    argv = splitCommand(line);
  } catch (err) {
    return usageError(`--command: ${(err as Error).message}`);
  }
  return argv.length > 0 ? argv : usageError('--command needs the command that starts hookgate');
}
