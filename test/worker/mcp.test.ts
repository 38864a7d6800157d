/**
 * The MCP route inside workerd: the MCP SDK's own client, its requests served by the production
 * Worker (exports.default.fetch), the SDK's web-standard server transport running in the Workers
 * runtime. The module hook declares get_weather (test/worker/hooks/tool-hook.ts).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { HOOK_URL, token } from './helpers.js';

const worker = exports.default;
const MCP_URL = `${HOOK_URL}/mcp`;

async function connect(bearer?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {},
    fetch: (url, init) => worker.fetch(String(url), init),
  });
  const client = new Client({ name: 'workerd-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

describe('the MCP route in workerd', () => {
  it("lists the SDK hook's declared tool and answers tools/call through the gateway", async () => {
    const client = await connect(await token());
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
    expect(await client.callTool({ name: 'get_weather', arguments: { city: 'Berlin' } })).toEqual({
      content: [{ type: 'text', text: 'Berlin: 18 C, light rain' }],
    });
    await expect(client.callTool({ name: 'exec', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it("narrows to the token's tools claim", async () => {
    const client = await connect(await token({ tools: ['something_else'] }));
    expect((await client.listTools()).tools).toEqual([]);
    await expect(
      client.callTool({ name: 'get_weather', arguments: { city: 'Berlin' } }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await client.close();
  });

  it('answers 401 with WWW-Authenticate without a token, and 405 to GET', async () => {
    await expect(connect()).rejects.toMatchObject({ code: 401 });
    const res = await worker.fetch(MCP_URL, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="hookgate"/);
    const get = await worker.fetch(MCP_URL, { headers: { authorization: `Bearer ${await token()}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });
});
