/** Who is calling, as proven by a verified token. */
export interface Principal {
  tenant: string;
  subject?: string;
  /** Hook names this token may call; `*` means all of the tenant's hooks. */
  hooks: ReadonlySet<string>;
  /** Narrows each hook's `tools` when present. */
  tools?: readonly string[];
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** The verified token's claims, as grant conditions see them (`claims.sub`). */
  claims?: Readonly<Record<string, unknown>>;
}

export function mayCallHook(p: Principal, hook: string): boolean {
  return p.hooks.has('*') || p.hooks.has(hook);
}
