import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MIN_REMEMBERED_UNITS } from '../../src/core/params-text.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

// A request whose params the grants leave unchanged goes to a stdio hook as the client wrote them
// (no parse and stringify in between, see src/core/params-text.ts); params the grants change are
// serialised from what the gateway made of them.
const HOOK = join(import.meta.dirname, '../helpers/raw-line-hook.mjs');
const stdioHook = (grants: object) => ({
  backend: { type: 'stdio', command: [process.execPath, HOOK] },
  modes: ['llm', 'tool'],
  tools: ['get_weather'],
  grants,
  timeout_ms: 5000,
});

const PARAMS =
  '{ "model": "m", "n": 12345678901234567890, "e": 1E2, "messages": [ { "role": "user", "content": "caf\\u00e9 ☕ 😀" } ] }';
/** Trailing spaces make a message long enough to be remembered (params-text.ts: MIN_REMEMBERED_UNITS). */
const PAD = ' '.repeat(MIN_REMEMBERED_UNITS);

let gw: TestGateway;
let token: string;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({ full: stdioHook({ conversation_access: true }), minimised: stdioHook({}) }),
    },
  });
  token = await gw.token({ tenant: 'acme' });
  await gw.ready();
}, 90_000);
afterAll(() => gw?.close());

/**
 * The params texts the hook reported receiving (its stderr lines, logged by the gateway). A spawn
 * the sandbox could not set up says why on the same stderr (`bwrap: …`) before the backend retries.
 */
function received(hook: string): string[] {
  return gw.logs.lines
    .filter((l) => l.msg === 'hook stderr' && l.hook === hook && !String(l.stderr).startsWith('bwrap: '))
    .map((l) => l.stderr);
}

async function overWs(hook: string, text: string): Promise<any> {
  const ws = new WebSocket(`${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/${hook}/ws`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const answer = new Promise<any>((resolve) => ws.once('message', (d) => resolve(JSON.parse(String(d)))));
  ws.send(text);
  try {
    return await answer;
  } finally {
    ws.close();
  }
}

describe('params forwarded to a stdio hook', () => {
  it('over HTTP and WebSocket: unchanged by the grants, byte-for-byte', async () => {
    const res = await gw.post(
      'acme',
      'full',
      `{"jsonrpc":"2.0","id":1,"method":"hook.before_llm","params":${PARAMS}}${PAD}`,
      token,
    );
    expect(((await res.json()) as any).result).toEqual({ action: 'continue' });
    const ws = await overWs(
      'full',
      `{"params":${PARAMS},"method":"hook.before_llm","id":"w1","jsonrpc":"2.0"}${PAD}`,
    );
    expect(ws.result).toEqual({ action: 'continue' });
    await expect.poll(() => received('full')).toEqual([PARAMS, PARAMS]);
  });

  it('params with a line break between tokens are serialised (one NDJSON line stays one)', async () => {
    const broken = PARAMS.replace('"e": 1E2,', '"e": 1E2,\n');
    await overWs('full', `{"jsonrpc":"2.0","id":2,"method":"hook.before_llm","params":${broken}}${PAD}`);
    await expect.poll(() => received('full').length).toBe(3);
    expect(JSON.parse(received('full')[2])).toEqual(JSON.parse(broken));
    expect(received('full')[2]).toBe(JSON.stringify(JSON.parse(broken)));
  });

  it('params the grants change (no conversation access) are what minimisation left', async () => {
    await overWs('minimised', `{"jsonrpc":"2.0","id":3,"method":"hook.before_llm","params":${PARAMS}}${PAD}`);
    await expect.poll(() => received('minimised').length).toBe(1);
    const sent = JSON.parse(received('minimised')[0]);
    expect(sent.messages[0].content).toBe('');
    expect(received('minimised')[0]).not.toContain('café');
  });
});
