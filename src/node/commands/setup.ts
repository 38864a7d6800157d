import { HookgateError } from '../../lib/errors.js';
import { loadConfigFile } from '../config-loader.js';
import { claudeCodeSettings, TOKEN_ENV } from '../setup-claude-code.js';
import { hermesHooksYaml } from '../setup-hermes.js';
import { defineCommand, usageError } from './command.js';
import { CONFIG_HELP, requireConfigFile } from './config-file.js';

/** Hosts `setup` can print settings for. */
const HOSTS = ['claude-code', 'hermes'] as const;

export const setup = defineCommand({
  name: 'setup',
  summary:
    "print a host's settings for one hook (claude-code: the .claude/settings.json hooks block; hermes: the config.yaml hooks block)",
  help: `usage: hookgate setup claude-code|hermes [--config FILE] --tenant T --hook H [--url BASE] [--hermes-no-modify]
${CONFIG_HELP}
  --tenant T      the tenant
  --hook H        the hook; only the events its modes cover are sent to it
  --url BASE      the gateway's URL as the host reaches it (default: the config's host and port)
  --hermes-no-modify  hermes: the Hermes release has no modify (0.19 and older); a granted rewrite
                  then blocks the call instead of being ignored
claude-code: prints the "hooks" block on stdout (timeouts above the hook's deadlines, onFailure:
"block" on the guarding events when the hook fails closed or decides approvals) and on stderr how to
give the host its token (${TOKEN_ENV}, expanded by Claude Code through allowedEnvVars).
hermes: prints the config.yaml "hooks:" block running \`hookgate hermes-hook\` (fail_closed: true and
--fail-closed on pre_tool_call when the hook fails closed); the token is ${TOKEN_ENV} in Hermes's
environment.`,
  flags: {
    config: { type: 'string' },
    tenant: { type: 'string' },
    hook: { type: 'string' },
    url: { type: 'string' },
    'hermes-no-modify': { type: 'boolean' },
  },
  maxPositionals: 1,
  async run({ values, positionals }, io) {
    const host = positionals[0];
    if (!HOSTS.includes(host as (typeof HOSTS)[number]))
      usageError(`setup needs a host, one of: ${HOSTS.join(', ')} (hookgate setup claude-code …)`);
    if (!values.tenant || !values.hook) usageError(`setup ${host} needs --tenant and --hook`);
    if (values.url !== undefined && !/^https?:\/\/[^/]/.test(values.url))
      usageError(`--url must be an http(s) URL, got ${JSON.stringify(values.url)}`);
    const file = requireConfigFile(values.config, io.env, io.cwd);
    const { config } = loadConfigFile(file, io.env);
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
    if (host === 'hermes') {
      io.stdout.write(hermesHooksYaml(hook, base, { noModify: values['hermes-no-modify'] === true }));
      io.stderr.write(
        `put this "hooks:" block in Hermes's config.yaml, export ${TOKEN_ENV} where Hermes runs ` +
          `(hookgate token --config ${file} --tenant ${values.tenant} --hooks ${values.hook}) ` +
          'and accept the hooks once (hermes --accept-hooks, or hooks_auto_accept: true)\n',
      );
      return 0;
    }
    io.stdout.write(`${JSON.stringify(claudeCodeSettings(hook, base), null, 2)}\n`);
    io.stderr.write(
      `put this "hooks" block in .claude/settings.json and export ${TOKEN_ENV} ` +
        `(hookgate token --config ${file} --tenant ${values.tenant} --hooks ${values.hook})\n`,
    );
    return 0;
  },
});
