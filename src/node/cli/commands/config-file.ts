import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { usageError } from './command.js';

export const CONFIG_ENV = 'HOOKGATE_CONFIG';
export const DEFAULT_CONFIG_FILE = 'hookgate.yaml';

/**
 * Which config file a command uses: `--config`, else `HOOKGATE_CONFIG`, else `./hookgate.yaml` when
 * it exists. Undefined when there is none (serve --demo needs none; the others refuse).
 */
export function findConfigFile(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string) {
  if (flag !== undefined) return resolve(cwd, flag);
  const fromEnv = env[CONFIG_ENV];
  if (fromEnv) return resolve(cwd, fromEnv);
  const local = resolve(cwd, DEFAULT_CONFIG_FILE);
  return existsSync(local) ? local : undefined;
}

export function requireConfigFile(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): string {
  return (
    findConfigFile(flag, env, cwd) ??
    usageError(
      `no config: pass --config FILE, set ${CONFIG_ENV}, or run where ${DEFAULT_CONFIG_FILE} is (hookgate init writes one)`,
    )
  );
}

export const CONFIG_HELP = `  --config FILE   YAML or JSON config (default: $${CONFIG_ENV}, else ./${DEFAULT_CONFIG_FILE})`;
