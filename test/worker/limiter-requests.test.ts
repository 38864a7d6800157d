/**
 * The tenant limiter across requests: each call here reaches a gateway as a request of its own
 * (as in production, unlike a test calling a handler directly), alternating between two gateways
 * (two isolates). One shared limit holds only if every request reaches the tenant's Durable
 * Object, not only an isolate's first.
 */
import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { limitedLogLines } from './entry.js';
import { LIMITED_TENANT } from './limiter-fixtures.js';
import { beforeTool, ORIGIN, rpc, token } from './helpers.js';

async function call(gateway: Fetcher): Promise<number> {
  const res = await gateway.fetch(`${ORIGIN}/v1/tenants/${LIMITED_TENANT}/hooks/tools`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await token({ tenant: LIMITED_TENANT })}`,
    },
    body: JSON.stringify(rpc('hook.before_tool', beforeTool('get_weather', { city: 'Berlin' }))),
  });
  await res.arrayBuffer();
  return res.status;
}

describe('the tenant limiter, request after request', () => {
  it('every request of every isolate is decided by the tenant’s Durable Object', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      statuses.push(await call(i % 2 ? exports.LimitedGatewayB : exports.LimitedGatewayA));
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
    expect(limitedLogLines.filter((l) => l.includes('tenant limiter unavailable'))).toEqual([]);
  });
});
