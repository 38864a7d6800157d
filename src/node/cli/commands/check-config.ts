import { loadConfigFile } from '../../config-loader.js';
import { CONFIG_HELP, requireConfigFile } from './config-file.js';
import { defineCommand } from './command.js';

export const checkConfig = defineCommand({
  name: 'check-config',
  help: `usage: hookgate check-config [--config FILE]
${CONFIG_HELP}
Exit 0 when the config would start; 1 with every problem named by its path.`,
  flags: { config: { type: 'string' } },
  async run({ values }, io) {
    const { config } = loadConfigFile(requireConfigFile(values.config, io.env, io.cwd), io.env);
    const hooks = [...config.tenants.values()].reduce((n, t) => n + t.hooks.size, 0);
    io.stdout.write(`config ok: ${config.tenants.size} tenant(s), ${hooks} hook(s)\n`);
    return 0;
  },
});
