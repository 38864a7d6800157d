import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LAZY_MIN_UNITS } from '../../src/core/lazy-params.js';
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
/** The bodies an http backend was sent (a real server on 127.0.0.1, answering `continue`). */
const posted: string[] = [];
const upstream = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    posted.push(body);
    const { id } = JSON.parse(body);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { action: 'continue' } }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const { port } = upstream.address() as AddressInfo;
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        full: stdioHook({ conversation_access: true }),
        minimised: stdioHook({}),
        rewriter: stdioHook({ conversation_access: true, rewrite_model: true }),
        keeper: stdioHook({ conversation_access: true }),
        remote: {
          backend: {
            type: 'http',
            url: `http://127.0.0.1:${port}/hook`,
            secret: `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`,
          },
          modes: ['llm'],
          grants: { conversation_access: true },
          timeout_ms: 5000,
        },
      }),
    },
  });
  token = await gw.token({ tenant: 'acme' });
  await gw.ready();
}, 90_000);
afterAll(async () => {
  await gw?.close();
  upstream.close();
});

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

/**
 * Large requests (LAZY_MIN_UNITS and up) are checked whole as JSON but their params are parsed only
 * where something reads them (src/core/lazy-params.ts): the hook still gets them as written, bad
 * JSON is still refused as such, and the checks of a hook's answer still read the request the host
 * sent.
 */
describe('large requests, params parsed only where read', () => {
  /** PARAMS with a long user message: one line of LAZY_MIN_UNITS and more, nothing else changed. */
  const long = (model: string) =>
    `{ "model": "${model}", "n": 12345678901234567890, "messages": [ { "role": "system", "content": "be brief \\" \\\\ \\u00e9" }, { "role": "user", "content": "${'x'.repeat(LAZY_MIN_UNITS)} caf\\u00e9 ☕ 😀" } ], "tools": [] }`;
  /** How the hook tells a long params text it received (raw-line-hook.mjs). */
  const told = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
  const request = (id: number | string, params: string) =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"hook.before_llm","params":${params}}`;

  it('reach the hook byte-for-byte over HTTP and WebSocket', async () => {
    const params = long('m');
    const res = await gw.post('acme', 'keeper', request(10, params), token);
    expect(((await res.json()) as any).result).toEqual({ action: 'continue' });
    expect((await overWs('keeper', request('w10', params))).result).toEqual({ action: 'continue' });
    await expect.poll(() => received('keeper')).toEqual([told(params), told(params)]);
  });

  it('reach an http hook byte-for-byte', async () => {
    const params = long('remote');
    const res = await gw.post('acme', 'remote', request(15, params), token);
    expect(((await res.json()) as any).result).toEqual({ action: 'continue' });
    expect(posted).toHaveLength(1);
    const body = posted[0];
    expect(body.slice(body.indexOf('"params":') + '"params":'.length, -1) === params).toBe(true);
    expect(JSON.parse(body)).toMatchObject({ id: expect.anything(), method: 'hook.before_llm' });
  });

  it('that are not JSON are refused as such, and never reach the hook', async () => {
    const before = received('keeper').length;
    // A raw line break inside a string, a trailing comma, a bad escape: each after 8 KiB of good text.
    const bad = [
      request(11, long('m').replace('be brief', 'be\nbrief')),
      request(12, long('m').replace('"tools": []', '"tools": [],')),
      request(13, long('m').replace('\\u00e9 ☕', '\\x ☕')),
    ];
    for (const text of bad) {
      expect(() => JSON.parse(text)).toThrow();
      const ws = await overWs('keeper', text);
      expect(ws.error).toMatchObject({ code: -32700 });
      const res = await gw.post('acme', 'keeper', text, token);
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({ code: -32700 });
    }
    // A good call after them is the next thing the hook sees.
    await overWs('keeper', request(14, long('after')));
    await expect.poll(() => received('keeper').length).toBe(before + 1);
    expect(received('keeper').at(-1)).toBe(told(long('after')));
  });

  it("a hook's modify is checked against the request the host sent", async () => {
    // Granted: the rewrite goes through, and everything else is the host's request as it came.
    const granted = await overWs('rewriter', request(20, long('rewrite-me')));
    expect(granted.result.action).toBe('modify');
    expect(granted.result.request).toEqual({ ...JSON.parse(long('rewrite-me')), model: 'rewritten' });
    // Not granted: the host's request stands, and the refusal is audited.
    const refused = await overWs('keeper', request(21, long('rewrite-me')));
    expect(refused.result).toEqual({ action: 'continue' });
    await expect
      .poll(() =>
        gw.logs
          .audits()
          .filter((a) => a.hook === 'keeper')
          .map((a) => a.rule),
      )
      .toContain('rewrite_model_not_granted');
  });
});
