/**
 * What a hook injects is asked once per backend start: a real stdio hook that is killed and
 * restarted by the gateway is asked again, and its new answer is what tools/list shows.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { mcpClient } from './helpers.js';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        pid: {
          backend: { type: 'stdio', command: ['node', 'test/mcp/hooks/pid-hook.mjs'] },
          tools: ['whoami'],
        },
      }),
    },
  });
});

afterAll(() => gw?.close());

function readyPids(): number[] {
  return gw.logs.lines.filter((l) => l.msg === 'hook process ready' && l.hook === 'pid').map((l) => l.pid);
}

async function described(): Promise<string | undefined> {
  const client = await mcpClient(gw, 'pid');
  try {
    return (await client.listTools()).tools[0]?.description;
  } finally {
    await client.close();
  }
}

it('asks again after the hook restarted, and keeps the answer until then', async () => {
  const [first] = readyPids();
  expect(first).toBeGreaterThan(0);
  const before = await described();
  expect(before).toMatch(/^run [0-9a-f-]{36}$/);
  expect(await described()).toBe(before);
  // The hook process the gateway started for this test (its pid from the gateway's own log).
  process.kill(first, 'SIGKILL');
  await expect.poll(() => readyPids().length).toBe(2);
  const after = await described();
  expect(after).toMatch(/^run [0-9a-f-]{36}$/);
  expect(after).not.toBe(before);
  // Asked once per start: two starts, two before_llm calls, however many lists.
  expect(await described()).toBe(after);
  expect(await gw.metricsText()).toMatch(
    /hookgate_calls_total\{tenant="acme",hook="pid",method="hook.before_llm",outcome="ok"\} 2\n/,
  );
});
