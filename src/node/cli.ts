import { parseArgs } from 'node:util';
import { compileConfig } from '../config/compile.js';
import { ConfigError } from '../config/errors.js';
import { type LoadedConfig, loadConfigFile, nodeSecretResolver } from './config-loader.js';
import { demoConfig } from './demo.js';
import { startGateway } from './server.js';
import { parseTtl, signDevToken } from './token.js';

const USAGE = `usage:
  hookgate serve (--config FILE | --demo) [--host H] [--port P]
  hookgate token --config FILE --tenant T --hooks a,b [--ttl 1h] [--tools x,y]
  hookgate check-config --config FILE
  hookgate setup claude-code --config FILE --tenant T --hook H [--url BASE]
  hookgate bridge --url wss://…/v1/tenants/T/hooks/H/ws [--on-failure open|closed] [--transport ws|http|auto]
                  [--timeout-ms 4500] [--approval-timeout-ms 55000] [--allow-respond a,b]   (token: HOOKGATE_TOKEN)`;

const list = (s: string | undefined) =>
  s === undefined
    ? undefined
    : s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);

/** Runs one command; resolves with the exit code (serve resolves only after a signal). */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serveCommand(rest);
      case 'token':
        return await tokenCommand(rest);
      case 'check-config':
        return checkConfigCommand(rest);
      case 'setup':
        if (rest[0] === 'claude-code')
          return await (await import('./setup-claude-code.js')).setupClaudeCodeCommand(rest.slice(1));
        throw new Error(`unknown setup target ${JSON.stringify(rest[0])} (known: claude-code)`);
      case 'bridge': {
        const { bridgeCommand } = await import('../bridge/index.js');
        return await bridgeCommand(rest);
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        process.stderr.write(`unknown command ${JSON.stringify(command)}\n${USAGE}\n`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(
        `config error:\n${err.issues.map((i) => `  ${i.path || '(root)'}: ${i.message}`).join('\n')}\n`,
      );
      return 1;
    }
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
}

async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      demo: { type: 'boolean' },
      host: { type: 'string' },
      port: { type: 'string' },
    },
  });
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536))
    throw new Error('--port must be 0-65535');
  let loaded: LoadedConfig;
  const demo = values.demo || !values.config;
  if (demo) {
    const d = demoConfig();
    loaded = {
      config: compileConfig(d.document, nodeSecretResolver(d.baseDir)),
      baseDir: d.baseDir,
      privatePaths: [],
    };
  } else {
    loaded = loadConfigFile(values.config!);
  }
  const file = demo ? undefined : values.config;
  const running = await startGateway({
    ...loaded,
    host: values.host,
    port,
    loadConfig: file === undefined ? undefined : () => loadConfigFile(file),
  });
  // SIGHUP re-reads the config file (as POST /admin/reload does); the outcome is logged.
  const onHangup = () => {
    running.reload().catch((err: unknown) => {
      process.stderr.write(`reload failed: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  };
  process.on('SIGHUP', onHangup);
  if (demo) {
    const tenant = loaded.config.tenants.get('demo')!;
    const token = await signDevToken(tenant, { hooks: ['weather'], ttlSeconds: 3600 });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'hook.before_tool',
      params: { tool: 'get_weather', arguments: { city: 'Berlin' } },
    });
    process.stdout.write(
      [
        '',
        `hookgate demo gateway on ${running.url}`,
        `  tenant "demo", hook "weather" (plugin tool get_weather), describe: GET ${running.url}/v1/tenants/demo/hooks/weather`,
        '',
        'dev token (valid for 1 hour, this process only):',
        `  ${token}`,
        '',
        'try it:',
        `  curl -s ${running.url}/v1/tenants/demo/hooks/weather \\`,
        `    -H "Authorization: Bearer ${token}" \\`,
        `    -H 'content-type: application/json' \\`,
        `    -d '${body}'`,
        '',
        '',
      ].join('\n'),
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.off('SIGHUP', onHangup);
  await running.close();
  return 0;
}

async function tokenCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string' },
      tenant: { type: 'string' },
      hooks: { type: 'string' },
      ttl: { type: 'string', default: '1h' },
      tools: { type: 'string' },
      subject: { type: 'string' },
    },
  });
  if (!values.config || !values.tenant || !values.hooks)
    throw new Error('token needs --config, --tenant and --hooks');
  const { config } = loadConfigFile(values.config);
  const tenant = config.tenants.get(values.tenant);
  if (!tenant) throw new Error(`no tenant ${JSON.stringify(values.tenant)} in the config`);
  const token = await signDevToken(tenant, {
    hooks: list(values.hooks) ?? [],
    tools: list(values.tools),
    ttlSeconds: parseTtl(values.ttl ?? '1h'),
    subject: values.subject,
  });
  process.stdout.write(`${token}\n`);
  return 0;
}

function checkConfigCommand(argv: string[]): number {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string' } } });
  if (!values.config) throw new Error('check-config needs --config FILE');
  const { config } = loadConfigFile(values.config);
  const hooks = [...config.tenants.values()].reduce((n, t) => n + t.hooks.size, 0);
  process.stdout.write(`config ok: ${config.tenants.size} tenant(s), ${hooks} hook(s)\n`);
  return 0;
}
