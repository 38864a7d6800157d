/**
 * The host-traits table (src/hosts/traits.ts) covers every dialect a hook answers (as describe
 * lists them) and the MCP route, and the command hosts' entries are what their route reads. That
 * replay decides each dialect as its route did is shown on real records in
 * test/node/replay-dialects.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_HOSTS } from '../../src/hosts/command/hosts.js';
import { HOST_TRAITS, hostTraitsOf } from '../../src/hosts/traits.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        guard: { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' }, modes: ['tool'] },
      }),
    },
  });
});
afterAll(async () => {
  await gw?.close();
});

describe('host traits', () => {
  it('names every dialect a hook answers, and MCP, and nothing else', async () => {
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/guard`, {
      headers: { authorization: `Bearer ${await gw.token()}` },
    });
    const { dialects } = (await res.json()) as { dialects: string[] };
    expect([...HOST_TRAITS.keys()].sort()).toEqual([...dialects, 'mcp'].sort());
  });

  it('gives each command host the traits its route reads from it', () => {
    for (const host of COMMAND_HOSTS)
      expect(hostTraitsOf(host.dialect)).toEqual({ hostApproves: host.hostApproves });
    expect(hostTraitsOf('smoke-signals')).toBeUndefined();
  });
});
