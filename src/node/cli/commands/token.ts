import { loadConfigFile } from '../../config-loader.js';
import { parseTtl, signDevToken } from '../../token.js';
import { CONFIG_HELP, requireConfigFile } from './config-file.js';
import { HookgateError } from '../../../lib/errors.js';
import { defineCommand, usageError } from './command.js';

const list = (s: string | undefined) =>
  s === undefined
    ? undefined
    : s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);

export const token = defineCommand({
  name: 'token',
  help: `usage: hookgate token --tenant T --hooks a,b [--tools x,y] [--ttl 1h] [--subject S] [--config FILE]
       hookgate token --tenant T --approver --subject S [--ttl 1h] [--config FILE]
${CONFIG_HELP}
  --tenant T      the tenant the token is for
  --hooks a,b     hooks it may call ("*" for all)
  --tools x,y     narrows the hooks' tools further (optional)
  --ttl D         lifetime: 90s, 15m, 1h, 7d (default 1h)
  --subject S     the sub claim (default dev)
  --approver      an approver token for the approval inbox (calls no hook; the subject is who decides)`,
  flags: {
    config: { type: 'string' },
    tenant: { type: 'string' },
    hooks: { type: 'string' },
    ttl: { type: 'string' },
    tools: { type: 'string' },
    subject: { type: 'string' },
    approver: { type: 'boolean' },
  },
  async run({ values }, io) {
    if (!values.tenant || (!values.hooks && !values.approver)) {
      usageError('token needs --tenant and --hooks (or --approver)');
    }
    if (values.approver && (values.hooks || values.tools))
      usageError('an --approver token takes no --hooks or --tools');
    let ttlSeconds: number;
    try {
      ttlSeconds = parseTtl(values.ttl ?? '1h');
    } catch (err) {
      usageError((err as Error).message);
    }
    const { config } = loadConfigFile(requireConfigFile(values.config, io.env, io.cwd), io.env);
    const tenant = config.tenants.get(values.tenant);
    if (!tenant)
      throw new HookgateError('UNKNOWN_TENANT', `no tenant ${JSON.stringify(values.tenant)} in the config`);
    const jwt = await signDevToken(tenant, {
      hooks: list(values.hooks) ?? [],
      tools: list(values.tools),
      ttlSeconds,
      subject: values.subject,
      approver: values.approver === true,
    });
    io.stdout.write(`${jwt}\n`);
    return 0;
  },
});
