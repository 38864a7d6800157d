import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { compileConfig } from '../config/compile.js';
import { ConfigError } from '../config/errors.js';
import type { GatewayConfig } from '../config/runtime.js';

/** `env:NAME` → the variable, `file:PATH` → the file (relative to the config), anything else is literal. */
export function nodeSecretResolver(baseDir: string, env: NodeJS.ProcessEnv = process.env) {
  return (ref: string): string => {
    if (ref.startsWith('env:')) {
      const name = ref.slice(4);
      const v = env[name];
      if (v === undefined || v === '') throw new Error(`environment variable ${name} is not set`);
      return v;
    }
    if (ref.startsWith('file:')) {
      const path = resolvePath(baseDir, ref.slice(5));
      try {
        return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
      } catch (err) {
        throw new Error(`cannot read ${ref.slice(5)}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
    }
    return ref;
  };
}

export function resolvePath(baseDir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(baseDir, p);
}

export interface LoadedConfig {
  config: GatewayConfig;
  /** Relative paths in the config (module, cwd, file:) are relative to this directory. */
  baseDir: string;
  /** The config file and every `file:` secret it read: what a sandboxed hook must never see. */
  privatePaths: string[];
}

/** Paths in the config (sandbox read/write paths) must exist when it is loaded. */
export function nodePathChecker(baseDir: string) {
  return (p: string): string | undefined => {
    const full = resolvePath(baseDir, p);
    return existsSync(full) ? undefined : `${p} does not exist${full === p ? '' : ` (${full})`}`;
  };
}

/** Reads a YAML or JSON file (YAML is a superset of JSON) and compiles it; every problem names its path. */
export function loadConfigFile(path: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([
      { path: '', message: `cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code}` },
    ]);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: true });
  } catch (err) {
    throw new ConfigError([
      { path: '', message: `not valid YAML/JSON: ${(err as Error).message.split('\n')[0]}` },
    ]);
  }
  const baseDir = dirname(resolve(path));
  const privatePaths = [resolve(path)];
  const resolveSecret = nodeSecretResolver(baseDir, env);
  const config = compileConfig(
    doc,
    (ref) => {
      if (ref.startsWith('file:')) privatePaths.push(resolvePath(baseDir, ref.slice(5)));
      return resolveSecret(ref);
    },
    nodePathChecker(baseDir),
  );
  return { config, baseDir, privatePaths };
}
