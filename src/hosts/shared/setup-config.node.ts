import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { compileConfig } from '../../config/compile.js';
import { ConfigError } from '../../config/errors.js';
import type { GatewayConfig } from '../../config/runtime.js';

/**
 * The config as `hookgate setup` needs it: the hooks (modes, tools, deadlines, failure modes) and
 * the listen address. Setup prints a host's settings and never signs, verifies or calls anything,
 * so it reads no secret: every secret reference (keys, webhook secrets, a stdio hook's env, the
 * Redis URL, the admin token) is swapped for a placeholder before the config is compiled, and a
 * tenant's signing secret need not be in the environment of whoever runs setup.
 */
export function loadSetupConfig(path: string): GatewayConfig {
  return compileConfig(withoutSecrets(readDocument(path)), (ref) => {
    // Nothing secret is left to resolve; a reference here is one this file does not know yet.
    if (ref.startsWith('env:') || ref.startsWith('file:'))
      throw new Error('hookgate setup does not read secrets; this reference is new to it');
    return ref;
  });
}

/** Long enough for every length check a secret gets (32 bytes); never used for anything. */
const PLACEHOLDER = 'placeholder-hookgate-setup-reads-no-secret';
/** A public key's place: any JWK object compiles; setup verifies no token with it. */
const PLACEHOLDER_JWK = { kty: 'OKP', crv: 'Ed25519', x: PLACEHOLDER };

function readDocument(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError([
      { path: '', message: `cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code}` },
    ]);
  }
  try {
    return parseYaml(text, { prettyErrors: true });
  } catch (err) {
    throw new ConfigError([
      { path: '', message: `not valid YAML/JSON: ${(err as Error).message.split('\n')[0]}` },
    ]);
  }
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const values = (v: unknown): unknown[] => (isObject(v) ? Object.values(v) : []);

/** A copy of the document with every secret reference replaced; anything malformed is left for compile to name. */
export function withoutSecrets(doc: unknown): unknown {
  if (!isObject(doc)) return doc;
  const copy = structuredClone(doc);
  if (isObject(copy.server)) {
    delete copy.server.redis_url;
    delete copy.server.admin_token;
  }
  for (const tenant of values(copy.tenants)) {
    if (!isObject(tenant)) continue;
    if (isObject(tenant.auth) && Array.isArray(tenant.auth.keys)) {
      for (const key of tenant.auth.keys) {
        if (!isObject(key)) continue;
        if (typeof key.secret === 'string') key.secret = PLACEHOLDER;
        if (typeof key.public_key === 'string') key.public_key = PLACEHOLDER_JWK;
      }
    }
    for (const hook of values(tenant.hooks)) {
      if (!isObject(hook) || !isObject(hook.backend)) continue;
      const backend = hook.backend;
      if (typeof backend.secret === 'string') backend.secret = PLACEHOLDER;
      if (Array.isArray(backend.secret)) backend.secret = backend.secret.map(() => PLACEHOLDER);
      if (isObject(backend.env))
        backend.env = Object.fromEntries(Object.keys(backend.env).map((k) => [k, PLACEHOLDER]));
    }
  }
  return copy;
}
