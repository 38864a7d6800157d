import { SignJWT } from 'jose';
import { argsDigest } from '../../src/approvals/binding.js';
import type { ApprovalBinding } from '../../src/approvals/types.js';
import type { GatewayConfig } from '../../src/config/runtime.js';
import { signDevToken } from '../../src/node/token.js';
import { SECRET } from './gateway.js';

/** A gateway rule that holds every `git push` for a person (the approval tests' usual case). */
export const PUSH_NEEDS_A_PERSON = {
  name: 'push-needs-a-person',
  kind: 'shell',
  when: 'call.command.contains("git push")',
  action: 'ask_human',
  reason: 'a push leaves the machine',
};

/** A tenant's approver token, minted as `hookgate token --approver` mints it. */
export function approverToken(config: GatewayConfig, tenant: string, subject = 'alice'): Promise<string> {
  return signDevToken(config.tenants.get(tenant)!, { hooks: [], approver: true, subject, ttlSeconds: 600 });
}

/** A token with exactly these claims, signed with the test tenants' key (or another secret: a forgery). */
export function rawToken(claims: Record<string, unknown>, secret = SECRET): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
    .setAudience('hookgate')
    .sign(new TextEncoder().encode(secret));
}

export async function bindingOf(
  tenant: string,
  args: unknown,
  over: Partial<ApprovalBinding> = {},
): Promise<ApprovalBinding> {
  return {
    tenant,
    hook: 'guard',
    host: 'claude-code',
    tool: 'write_file',
    argsDigest: await argsDigest(args),
    configRevision: 'rev-1',
    expiresAt: Date.now() + 120_000,
    ...over,
  };
}

/** Server-Sent Events read from a fetch() body, one `{event, data}` per `next()`. */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  return {
    async next(): Promise<{ event: string; data: any }> {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) continue;
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = /^data: (.*)$/m.exec(block)?.[1];
          return { event, data: data === undefined ? undefined : JSON.parse(data) };
        }
        const chunk = await reader.read();
        if (chunk.done) throw new Error('the event stream ended');
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}
