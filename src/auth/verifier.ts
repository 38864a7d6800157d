import { decodeProtectedHeader, errors as joseErrors, type JWTPayload, jwtVerify } from 'jose';
import type { TenantRuntime } from '../config/runtime.js';
import { AuthError } from './errors.js';
import { type Alg, importKeySet, type VerificationKey } from './key-set.js';
import type { Principal } from './principal.js';

const ALGS: ReadonlySet<string> = new Set<Alg>(['HS256', 'RS256', 'ES256', 'EdDSA']);

/**
 * Verifies tokens for one tenant: signature under one of the tenant's keys (chosen by `kid` and an
 * allowed `alg`), `exp` required, `aud` and (when configured) `iss` checked. Verified tokens are
 * cached until their `exp`, in a map bounded in size, so a repeated HTTP token costs a lookup.
 */
export class TenantVerifier {
  private readonly cache = new Map<string, Principal>();
  /**
   * The token found last and its principal (an entry of `cache`). A token arrives as a new string
   * on every request, and a Map lookup hashes all of its few hundred characters; most requests
   * repeat the previous token, and comparing with it costs a fraction of that.
   */
  private lastToken: string | undefined;
  private lastPrincipal: Principal | undefined;

  private constructor(
    private readonly tenant: TenantRuntime,
    private readonly keys: VerificationKey[],
    private readonly cacheSize: number,
  ) {}

  static async create(tenant: TenantRuntime, cacheSize: number): Promise<TenantVerifier> {
    const keys = await importKeySet(tenant.keys, `tenants.${tenant.name}.auth.keys`);
    return new TenantVerifier(tenant, keys, cacheSize);
  }

  /** The principal of a token verified before and not yet expired; no promise, no await. */
  cached(token: string, nowSeconds = Date.now() / 1000): Principal | undefined {
    const last = this.lastPrincipal;
    const cached = last !== undefined && token === this.lastToken ? last : this.cache.get(token);
    if (!cached) return undefined;
    if (cached.exp > nowSeconds) {
      this.lastToken = token;
      this.lastPrincipal = cached;
      return cached;
    }
    this.forget(token);
    return undefined;
  }

  /** Drops a token from the cache, and from `last` if it is that one. */
  private forget(token: string): void {
    this.cache.delete(token);
    if (token === this.lastToken) {
      this.lastToken = undefined;
      this.lastPrincipal = undefined;
    }
  }

  /**
   * The principal of a token: at once (no promise) when it is cached, else a promise while it is
   * verified. What the request path calls, once per HTTP call or WebSocket upgrade.
   */
  authenticate(token: string, nowSeconds = Date.now() / 1000): Principal | Promise<Principal> {
    return this.cached(token, nowSeconds) ?? this.verify(token, nowSeconds);
  }

  async verify(token: string, nowSeconds = Date.now() / 1000): Promise<Principal> {
    const cached = this.cached(token, nowSeconds);
    if (cached) return cached;
    const principal = await this.verifyUncached(token, nowSeconds);
    if (this.cacheSize > 0) {
      if (this.cache.size >= this.cacheSize) {
        const oldest = this.cache.keys().next().value;
        if (oldest !== undefined) this.forget(oldest);
      }
      this.cache.set(token, principal);
    }
    return principal;
  }

  private async verifyUncached(token: string, nowSeconds: number): Promise<Principal> {
    let header: { alg?: string; kid?: string };
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new AuthError('TOKEN_MALFORMED', 'token is not a JWS compact JWT');
    }
    const alg = header.alg;
    if (typeof alg !== 'string' || !ALGS.has(alg)) {
      throw new AuthError('TOKEN_INVALID', `algorithm ${JSON.stringify(alg ?? null)} is not allowed`);
    }
    const candidates = this.keys.filter(
      (k) => k.algs.includes(alg as Alg) && (k.remote || !header.kid || !k.kid || k.kid === header.kid),
    );
    if (candidates.length === 0)
      throw new AuthError('TOKEN_INVALID', 'no key of this tenant accepts this token');
    let last: unknown;
    for (const k of candidates) {
      try {
        const { payload } = await jwtVerify(token, k.key as Parameters<typeof jwtVerify>[1], {
          algorithms: [alg],
          audience: this.tenant.audience,
          issuer: this.tenant.issuer,
          clockTolerance: this.tenant.clockToleranceS,
          requiredClaims: ['exp'],
          currentDate: new Date(nowSeconds * 1000),
        });
        return toPrincipal(payload);
      } catch (err) {
        if (err instanceof AuthError) throw err;
        if (err instanceof joseErrors.JWTExpired) throw new AuthError('TOKEN_EXPIRED', 'token has expired');
        if (err instanceof joseErrors.JWTClaimValidationFailed) {
          throw new AuthError('TOKEN_INVALID', `claim check failed: ${err.claim} ${err.reason}`);
        }
        last = err;
      }
    }
    const why = last instanceof joseErrors.JOSEError ? last.code : 'signature verification failed';
    throw new AuthError('TOKEN_INVALID', `token did not verify (${why})`);
  }
}

function toPrincipal(payload: JWTPayload): Principal {
  const { tenant, hooks, tools } = payload as Record<string, unknown>;
  if (typeof tenant !== 'string') throw new AuthError('TENANT_MISMATCH', 'token has no tenant claim');
  if (!Array.isArray(hooks) || hooks.some((h) => typeof h !== 'string')) {
    throw new AuthError('TOKEN_INVALID', 'claim hooks must be a list of hook names');
  }
  if (tools !== undefined && (!Array.isArray(tools) || tools.some((t) => typeof t !== 'string'))) {
    throw new AuthError('TOKEN_INVALID', 'claim tools must be a list of tool names');
  }
  return {
    tenant,
    subject: typeof payload.sub === 'string' ? payload.sub : undefined,
    hooks: new Set(hooks as string[]),
    tools: tools as string[] | undefined,
    exp: payload.exp as number,
    claims: payload,
  };
}
