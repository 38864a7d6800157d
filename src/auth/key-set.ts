import {
  createRemoteJWKSet,
  type CryptoKey,
  type JWTVerifyGetKey,
  importJWK,
  importSPKI,
  type JWK,
  type KeyObject,
} from 'jose';
import { ConfigError } from '../config/errors.js';
import type { ResolvedKey } from '../config/runtime.js';

export type Alg = 'HS256' | 'RS256' | 'ES256' | 'EdDSA';

/** One key ready for jwtVerify, with the algorithms it may be used with (an allowlist, never `none`). */
export interface VerificationKey {
  kid?: string;
  algs: readonly Alg[];
  key: Uint8Array | CryptoKey | KeyObject | JWTVerifyGetKey;
  remote: boolean;
}

/**
 * Imports every key of a tenant once, at startup: key import is too slow for the request path, and a
 * bad key should stop the gateway from starting rather than fail the first call.
 */
export async function importKeySet(keys: readonly ResolvedKey[], path: string): Promise<VerificationKey[]> {
  const out: VerificationKey[] = [];
  for (const [i, k] of keys.entries()) {
    try {
      if (k.kind === 'secret') {
        // Imported once: handing jose the raw bytes would re-import the key on every verification.
        const key = await crypto.subtle.importKey(
          'raw',
          k.secret as Uint8Array<ArrayBuffer>,
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['verify'],
        );
        out.push({ kid: k.kid, algs: ['HS256'], key, remote: false });
      } else if (k.kind === 'public') {
        const key =
          typeof k.key === 'string' ? await importSPKI(k.key, k.alg) : await importJWK(k.key as JWK, k.alg);
        if (key instanceof Uint8Array) throw new Error('a symmetric JWK is not a public key');
        out.push({ kid: k.kid, algs: [k.alg], key, remote: false });
      } else {
        const jwks = createRemoteJWKSet(new URL(k.url), {
          timeoutDuration: k.timeoutMs,
          cacheMaxAge: k.cacheMaxAgeMs,
          cooldownDuration: 30_000,
        });
        out.push({ algs: k.algs, key: jwks, remote: true });
      }
    } catch (err) {
      const message = `cannot import key: ${err instanceof Error ? err.message : String(err)}`;
      throw new ConfigError([{ path: `${path}.${i}`, message }]);
    }
  }
  return out;
}
