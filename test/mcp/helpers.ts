import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { TestGateway } from '../helpers/gateway.js';

export function mcpUrl(gw: TestGateway, hook: string, tenant = 'acme'): string {
  return `${gw.url}/v1/tenants/${tenant}/hooks/${hook}/mcp`;
}

/** The 2026-07-28 revision: per-request `_meta` envelope, `server/discover` instead of initialize. */
export const MODERN = '2026-07-28';

/**
 * The MCP SDK's own client, connected to a hook's MCP route with a bearer token (none if null):
 * a 2025-era client (initialize handshake, 2025-11-25) unless `modern` pins the 2026-07-28 revision.
 */
export async function mcpClient(
  gw: TestGateway,
  hook: string,
  opts: { token?: string | null; tenant?: string; tools?: string[]; modern?: boolean } = {},
): Promise<Client> {
  const token =
    opts.token === null
      ? undefined
      : (opts.token ?? (await gw.token({ tenant: opts.tenant, tools: opts.tools })));
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl(gw, hook, opts.tenant)), {
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
  const client = new Client(
    { name: 'hookgate-test', version: '1.0.0' },
    opts.modern ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
  );
  await client.connect(transport);
  return client;
}

/** A raw JSON-RPC POST to the MCP route, as a client that speaks Streamable HTTP would send it. */
export function mcpPost(gw: TestGateway, hook: string, body: unknown, token?: string): Promise<Response> {
  return fetch(mcpUrl(gw, hook), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
