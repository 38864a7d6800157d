import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { HookgateError } from '../../../lib/errors.js';
import { defineCommand, usageError } from './command.js';

/** 32 random bytes: the least config validation accepts for an HS256 secret is 32 bytes of text. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export const keygen = defineCommand({
  name: 'keygen',
  help: `usage: hookgate keygen [--alg HS256|EdDSA] [--kid K] [--out PATH]
  --alg HS256     (default) print a random secret on stdout, the config line on stderr:
                    export ACME_HOOK_SECRET=$(hookgate keygen)
  --alg EdDSA     write an Ed25519 key pair, PATH.pem (private, mode 600: sign tokens with it) and
                  PATH.pub.pem (public: the gateway needs only this), and print the config line
  --kid K         the key id tokens carry in their header (default k1)
  --out PATH      EdDSA only; default ./K (refuses to overwrite)
Also good for server.admin_token: export HOOKGATE_ADMIN_TOKEN=$(hookgate keygen)`,
  flags: {
    alg: { type: 'string' },
    kid: { type: 'string' },
    out: { type: 'string' },
  },
  async run({ values }, io) {
    const alg = values.alg ?? 'HS256';
    const kid = values.kid ?? 'k1';
    if (!/^[\w.-]+$/.test(kid)) usageError('--kid may hold letters, digits, "_", "." and "-" only');
    if (alg === 'HS256') {
      if (values.out !== undefined) usageError('--out is for --alg EdDSA; an HS256 secret goes to stdout');
      io.stdout.write(`${newSecret()}\n`);
      io.stderr.write(
        `config: - { kid: ${kid}, alg: HS256, secret: env:ACME_HOOK_SECRET }   # or file:PATH\n`,
      );
      return 0;
    }
    if (alg !== 'EdDSA') usageError(`--alg must be HS256 or EdDSA (got "${alg}")`);
    const base = resolve(io.cwd, values.out ?? kid);
    const privatePath = `${base}.pem`;
    const publicPath = `${base}.pub.pem`;
    for (const p of [privatePath, publicPath]) {
      if (existsSync(p))
        throw new HookgateError('FILE_EXISTS', `${p} exists; not overwriting it (choose another --out)`);
    }
    const { privateKey, publicKey } = generateKeyPairSync('ed25519', {
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    mkdirSync(dirname(base), { recursive: true });
    writeFileSync(privatePath, privateKey, { mode: 0o600, flag: 'wx' });
    writeFileSync(publicPath, publicKey, { mode: 0o644, flag: 'wx' });
    const shown = (p: string) => relative(io.cwd, p) || p;
    io.stdout.write(
      [
        `wrote ${shown(privatePath)} (private: keep it with whoever signs tokens) and ${shown(publicPath)}`,
        'config (public_key: file:… is relative to the config file):',
        `  - { kid: ${kid}, alg: EdDSA, public_key: file:${shown(publicPath)} }`,
        '',
      ].join('\n'),
    );
    return 0;
  },
});
