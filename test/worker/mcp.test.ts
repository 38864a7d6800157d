/**
 * The MCP route inside workerd: the MCP SDK's own client, its requests served by the production
 * Worker (exports.default.fetch), the SDK's v2 server running in the Workers runtime, for a
 * 2025-era client (initialize handshake) and one pinned to the 2026-07-28 revision. The module hook
 * declares get_weather (test/worker/hooks/tool-hook.ts).
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { HOOK_URL, token } from './helpers.js';

const worker = exports.default;
const MCP_URL = `${HOOK_URL}/mcp`;

async function connect(bearer?: string, modern = false): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {},
    fetch: (url, init) => worker.fetch(String(url), init),
  });
  const client = new Client(
    { name: 'workerd-test', version: '1.0.0' },
    modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(transport);
  return client;
}

describe.each([
  ['2025-11-25', false],
  ['2026-07-28', true],
])('the MCP route in workerd, protocol %s', (version, modern) => {
  it("lists the SDK hook's declared tool and answers tools/call through the gateway", async () => {
    const client = await connect(await token(), modern);
    expect(client.getNegotiatedProtocolVersion()).toBe(version);
    expect((await client.listTools()).tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather for a city',
        inputSchema: {
          type: 'object',
          properties: { city: { type: 'string', minLength: 1 } },
          required: ['city'],
        },
      },
    ]);
    // 2026-07-28 results also carry the server's identity in _meta.
    const { _meta, ...result } = await client.callTool({
      name: 'get_weather',
      arguments: { city: 'Berlin' },
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Berlin: 18 C, light rain' }] });
    await expect(client.callTool({ name: 'exec', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it("narrows to the token's tools claim", async () => {
    const client = await connect(await token({ tools: ['something_else'] }), modern);
    expect((await client.listTools()).tools).toEqual([]);
    await expect(
      client.callTool({ name: 'get_weather', arguments: { city: 'Berlin' } }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await client.close();
  });

  it('answers 401 with WWW-Authenticate without a token, and 405 to GET', async () => {
    await expect(connect(undefined, modern)).rejects.toMatchObject({ status: 401 });
    const res = await worker.fetch(MCP_URL, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="hookgate"/);
    const get = await worker.fetch(MCP_URL, { headers: { authorization: `Bearer ${await token()}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
