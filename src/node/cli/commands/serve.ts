import { compileConfig } from '../../../config/compile.js';
import type { GatewayConfig } from '../../../config/runtime.js';
import { type LoadedConfig, loadConfigFile, nodeSecretResolver } from '../../config-loader.js';
import { demoConfig } from '../../demo.js';
import { createNodeLogger } from '../../logger.js';
import { startGateway } from '../../server.js';
import { signDevToken } from '../../token.js';
import { CONFIG_HELP, findConfigFile } from './config-file.js';
import { type CommandIo, defineCommand, usageError } from './command.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const serve = defineCommand({
  name: 'serve',
  help: `usage: hookgate serve [--config FILE | --demo] [--host H] [--port P] [--log-level L]
${CONFIG_HELP}
  --demo          the built-in demo (tenant "demo", hook "weather"); prints a dev token and a curl call
  --host H        listen address (default: $HOST, else server.host, else 127.0.0.1)
  --port P        port, 0 for any free one (default: $PORT, else server.port, else 8787)
  --log-level L   ${LOG_LEVELS.join('|')} (default: $LOG_LEVEL, else server.log_level, else info)
Without a config it refuses to start, unless --demo. SIGHUP or POST /admin/reload re-reads the file.`,
  flags: {
    config: { type: 'string' },
    demo: { type: 'boolean' },
    host: { type: 'string' },
    port: { type: 'string' },
    'log-level': { type: 'string' },
  },
  async run({ values }, io) {
    if (values.demo && values.config !== undefined) usageError('--demo and --config cannot be used together');
    const host = values.host ?? nonEmpty(io.env.HOST);
    const port = parsePort(
      values.port ?? nonEmpty(io.env.PORT),
      values.port !== undefined ? '--port' : 'PORT',
    );
    const logLevel = parseLogLevel(
      values['log-level'] ?? nonEmpty(io.env.LOG_LEVEL),
      values['log-level'] !== undefined,
    );
    const file = values.demo ? undefined : findConfigFile(values.config, io.env, io.cwd);
    if (!values.demo && file === undefined) {
      usageError(
        'no config: pass --config FILE, set HOOKGATE_CONFIG, or run where hookgate.yaml is (hookgate init writes one); --demo runs the built-in demo',
      );
    }
    const loaded: LoadedConfig = file === undefined ? loadDemo() : loadConfigFile(file, io.env);
    const running = await startGateway({
      ...loaded,
      host,
      port,
      log: createNodeLogger(logLevel ?? loaded.config.server.logLevel),
      loadConfig: file === undefined ? undefined : () => loadConfigFile(file, io.env),
    });
    // SIGHUP re-reads the config file (as POST /admin/reload does); the outcome is logged.
    const onHangup = () => {
      running.reload().catch((err: unknown) => {
        io.stderr.write(`reload failed: ${err instanceof Error ? err.message : String(err)}\n`);
      });
    };
    process.on('SIGHUP', onHangup);
    if (file === undefined) await printDemo(loaded.config, running.url, io);
    const signal = await new Promise<NodeJS.Signals>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    process.off('SIGHUP', onHangup);
    await running.close(signal);
    return 0;
  },
});

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}

function parsePort(raw: string | undefined, source: string): number | undefined {
  if (raw === undefined) return undefined;
  const port = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(Number.isInteger(port) && port >= 0 && port < 65536)) {
    usageError(`${source} must be a port number 0-65535 (got "${raw}")`);
  }
  return port;
}

function parseLogLevel(raw: string | undefined, fromFlag: boolean): string | undefined {
  if (raw === undefined) return undefined;
  if (!(LOG_LEVELS as readonly string[]).includes(raw)) {
    usageError(
      `${fromFlag ? '--log-level' : 'LOG_LEVEL'} must be one of ${LOG_LEVELS.join(', ')} (got "${raw}")`,
    );
  }
  return raw;
}

function loadDemo(): LoadedConfig {
  const d = demoConfig();
  return {
    config: compileConfig(d.document, nodeSecretResolver(d.baseDir)),
    baseDir: d.baseDir,
    privatePaths: [],
  };
}

async function printDemo(config: GatewayConfig, url: string, io: CommandIo): Promise<void> {
  const tenant = config.tenants.get('demo')!;
  const token = await signDevToken(tenant, { hooks: ['weather', 'guard'], ttlSeconds: 3600 });
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'hook.before_tool',
    params: { tool: 'get_weather', arguments: { city: 'Berlin' } },
  });
  const denied = JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    method: 'hook.before_tool',
    params: { tool: 'exec', arguments: { command: 'rm -rf /tmp/x' } },
  });
  io.stdout.write(
    [
      '',
      `hookgate demo gateway on ${url}`,
      `  tenant "demo", hook "weather" (plugin tool get_weather), describe: GET ${url}/v1/tenants/demo/hooks/weather`,
      `  hook "guard": rules only (docs/policy.md)`,
      '',
      'dev token (valid for 1 hour, this process only):',
      `  ${token}`,
      '',
      'try it:',
      `  curl -s ${url}/v1/tenants/demo/hooks/weather \\`,
      `    -H "Authorization: Bearer ${token}" \\`,
      `    -H 'content-type: application/json' \\`,
      `    -d '${body}'`,
      '',
      'a hook made only of rules (no code): PicoClaw asks to run `rm -rf /tmp/x`, the gateway denies it:',
      `  curl -s ${url}/v1/tenants/demo/hooks/guard \\`,
      `    -H "Authorization: Bearer ${token}" \\`,
      `    -H 'content-type: application/json' \\`,
      `    -d '${denied}'`,
      '',
      '',
    ].join('\n'),
  );
}
