import { SignJWT } from 'jose';
import { ACME_KEY } from './fixtures.js';

export const ORIGIN = 'https://hookgate.test';
export const HOOK_URL = `${ORIGIN}/v1/tenants/acme/hooks/tools`;

/** A real HS256 JWT, signed here the way a tenant's token service would. */
export async function token(
  opts: {
    key?: string;
    kid?: string;
    tenant?: string;
    hooks?: string[];
    tools?: string[];
    ttl?: number;
  } = {},
): Promise<string> {
  const claims: Record<string, unknown> = { tenant: opts.tenant ?? 'acme', hooks: opts.hooks ?? ['*'] };
  if (opts.tools) claims.tools = opts.tools;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', kid: opts.kid ?? 'acme-1', typ: 'JWT' })
    .setIssuedAt()
    .setAudience('hookgate')
    .setSubject('worker-test')
    .setExpirationTime(Math.floor(Date.now() / 1000) + (opts.ttl ?? 600))
    .sign(new TextEncoder().encode(opts.key ?? ACME_KEY));
}

let nextId = 1;

export function rpc(method: string, params: unknown, id: number = nextId++) {
  return { jsonrpc: '2.0', id, method, params };
}

export function beforeTool(tool: string, args: Record<string, unknown> = {}) {
  return {
    meta: { AgentID: 'main', TurnID: 'turn-1', Iteration: 1 },
    context: { inbound: { channel: 'telegram', chat_id: '1' } },
    tool,
    arguments: args,
  };
}
