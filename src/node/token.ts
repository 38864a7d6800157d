import { SignJWT } from 'jose';
import { APPROVER_ROLE, APPROVER_ROLE_CLAIM } from '../approvals/approver.js';
import type { TenantRuntime } from '../config/runtime.js';

export interface DevTokenOptions {
  hooks: string[];
  tools?: string[];
  ttlSeconds: number;
  subject?: string;
  /**
   * An approver token (docs/approvals.md): carries `hookgate_role: "approver"`, and no hooks
   * whatever `hooks` says, so it decides approvals and calls nothing.
   */
  approver?: boolean;
}

/** Parses `90s`, `15m`, `1h`, `7d` (or plain seconds). */
export function parseTtl(s: string): number {
  const m = /^(\d+)\s*([smhd]?)$/.exec(s.trim());
  if (!m) throw new Error(`bad --ttl ${JSON.stringify(s)}: use e.g. 90s, 15m, 1h, 7d`);
  const n =
    Number(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as const)[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  if (n <= 0) throw new Error('--ttl must be positive');
  return n;
}

/** A development token signed with the tenant's first HS256 key. */
export async function signDevToken(tenant: TenantRuntime, opts: DevTokenOptions): Promise<string> {
  const key = tenant.keys.find((k) => k.kind === 'secret');
  if (key?.kind !== 'secret') throw new Error(`tenant ${tenant.name} has no HS256 key to sign with`);
  const claims: Record<string, unknown> = { tenant: tenant.name, hooks: opts.approver ? [] : opts.hooks };
  if (opts.tools && !opts.approver) claims.tools = opts.tools;
  if (opts.approver) claims[APPROVER_ROLE_CLAIM] = APPROVER_ROLE;
  const jwt = new SignJWT(claims)
    .setProtectedHeader(key.kid ? { alg: 'HS256', kid: key.kid, typ: 'JWT' } : { alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + opts.ttlSeconds)
    .setAudience(tenant.audience)
    .setSubject(opts.subject ?? 'dev');
  if (tenant.issuer) jwt.setIssuer(tenant.issuer);
  return jwt.sign(key.secret);
}
