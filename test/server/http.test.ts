import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { paramsFrom } from '../policy/helpers.js';
import { fetchMetrics, startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

const ADMIN = 'http-test-admin-token-0123456789-abcdefghij';
process.env.HOOKGATE_HTTP_TEST_ADMIN = ADMIN;
const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    server: { max_body_bytes: 64 * 1024, admin_token: 'env:HOOKGATE_HTTP_TEST_ADMIN' },
    tenants: {
      acme: tenantDoc({
        tools: { ...rec, modes: ['tool'], tools: ['get_weather', 'get_time'] },
        llm: { ...rec, modes: ['llm'] },
        reader: { ...rec, modes: ['llm'], grants: { conversation_access: true } },
        observer: { ...rec, modes: ['observe'] },
        watcher: { ...rec, modes: ['observe'], grants: { conversation_access: true } },
        approver: { ...rec, modes: ['approve'] },
      }),
    },
  });
});
afterAll(() => gw?.close());
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

async function raw(hook: string, body: string) {
  const res = await gw.post('acme', hook, body, await gw.token());
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
}

describe('POST /v1/tenants/{tenant}/hooks/{hook}: JSON-RPC edges', () => {
  it('answers malformed JSON with a JSON-RPC parse error (400, id null)', async () => {
    const r = await raw('tools', '{"jsonrpc":"2.0","id":1,');
    expect(r).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'message is not valid JSON' } },
    });
  });

  it('refuses a batch (a JSON array) before parsing it: what follows its "[" is never read', async () => {
    const r = await raw('tools', '[{"jsonrpc":"2.0","id":1,"method":"hook.hello"}, this is not JSON');
    expect(r).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'a JSON-RPC message must be an object (no batches)' },
      },
    });
  });

  // Not a message of this route (its OpenAPI body): 400, the JSON-RPC error as the body.
  it.each([
    ['not an object', '[1,2]', -32600],
    ['wrong jsonrpc version', '{"jsonrpc":"1.0","id":1,"method":"hook.before_tool"}', -32600],
    ['an empty method', '{"jsonrpc":"2.0","id":1,"method":""}', -32600],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"hook.before_tool","params":{}}', -32600],
    ['a response', '{"jsonrpc":"2.0","id":1,"result":{}}', -32600],
    ['no body at all', '', -32700],
    ['params not an object', '{"jsonrpc":"2.0","id":1,"method":"hook.before_tool","params":[1]}', -32602],
    [
      'params an array (a notification)',
      '{"jsonrpc":"2.0","method":"hook.runtime_event","params":[]}',
      -32602,
    ],
  ])('answers %s with 400 and a JSON-RPC error', async (_n, body, code) => {
    const r = await raw('tools', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe(code);
    expect(recorder().calls).toEqual([]);
  });

  // A valid message the hook protocol refuses: a JSON-RPC error inside 200.
  it.each([
    ['unknown method', '{"jsonrpc":"2.0","id":1,"method":"hook.nope","params":{}}', -32601],
    // Names a plain object inherits are no methods either.
    ['method constructor', '{"jsonrpc":"2.0","id":1,"method":"constructor","params":{}}', -32601],
    ['method toString', '{"jsonrpc":"2.0","id":1,"method":"toString","params":{}}', -32601],
    ['method __proto__', '{"jsonrpc":"2.0","id":1,"method":"__proto__","params":{}}', -32601],
    ['method hasOwnProperty', '{"jsonrpc":"2.0","id":1,"method":"hasOwnProperty","params":{}}', -32601],
    ['no params', '{"jsonrpc":"2.0","id":1,"method":"hook.before_tool"}', -32602],
  ])('answers %s with JSON-RPC error %i', async (_n, body, code) => {
    const r = await raw('tools', body);
    expect(r.status).toBe(200);
    expect(r.body.error.code).toBe(code);
  });

  it('refuses a body over server.max_body_bytes with 413 and a JSON error', async () => {
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'hook.before_tool',
      params: { tool: 'x', arguments: { a: 'x'.repeat(70_000) } },
    });
    const r = await raw('tools', big);
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
    expect(recorder().calls).toEqual([]);
  });

  it('refuses a chunked body (no Content-Length) as soon as it passes the limit', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 64) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/tools`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await gw.token()}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(recorder().calls).toEqual([]);
  });

  it('reads a small chunked body', async () => {
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: 5,
      method: 'hook.before_tool',
      params: { tool: 'get_weather' },
    });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/tools`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await gw.token()}`, 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 5, result: { action: 'continue' } });
  });

  it('echoes string ids as sent', async () => {
    const r = await raw(
      'tools',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'abc',
        method: 'hook.before_tool',
        params: { tool: 'get_weather' },
      }),
    );
    expect(r.body).toEqual({ jsonrpc: '2.0', id: 'abc', result: { action: 'continue' } });
  });
});

describe('modes, hello and events', () => {
  it('answers hook.hello itself, without calling the hook', async () => {
    const body = await gw.call('tools', 'hook.hello', { name: 'x', version: 1, modes: ['tool'] });
    expect(body.result).toEqual({
      ok: true,
      name: 'tools',
      version: 1,
      modes: ['tool'],
      tools: ['get_weather', 'get_time'],
    });
    expect(recorder().calls).toEqual([]);
  });

  it('never forwards a method outside the granted modes, and audits it', async () => {
    recorder().answer = () => ({ action: 'abort_turn' });
    const llm = await gw.call(
      'tools',
      'hook.before_llm',
      paramsFrom('04-before-llm-continue.jsonl', 'hook.before_llm'),
    );
    expect(llm.result).toEqual({ action: 'continue' });
    const approve = await gw.call(
      'tools',
      'hook.approve_tool',
      paramsFrom('13-approve-true.jsonl', 'hook.approve_tool'),
    );
    expect(approve.result).toMatchObject({
      approved: false,
      reason: expect.stringMatching(/not granted the approve mode/),
    });
    expect(recorder().calls).toEqual([]);
    const audits = gw.logs.audits().filter((a) => a.hook === 'tools' && a.rule === 'mode_not_granted');
    expect(audits.map((a) => a.method)).toEqual(
      expect.arrayContaining(['hook.before_llm', 'hook.approve_tool']),
    );
    expect(audits[0]).toMatchObject({ tenant: 'acme', decision_id: expect.any(String) });
  });

  it('delivers runtime events (and the older hook.event) to a hook with observe, with 202', async () => {
    const token = await gw.token();
    const event = {
      jsonrpc: '2.0',
      method: 'hook.runtime_event',
      params: { id: 'evt-1', kind: 'agent.turn.start' },
    };
    expect((await gw.post('acme', 'observer', event, token)).status).toBe(202);
    expect((await gw.post('acme', 'observer', { ...event, method: 'hook.event' }, token)).status).toBe(202);
    await expect
      .poll(() => recorder().calls.map((c) => c.method))
      .toEqual(['hook.runtime_event', 'hook.event']);
  });

  it("withholds the user's message in events unless the hook has conversation_access", async () => {
    const token = await gw.token();
    const turnStart = {
      jsonrpc: '2.0',
      method: 'hook.runtime_event',
      params: {
        id: 'evt-3',
        kind: 'agent.turn.start',
        payload: { UserMessage: 'my pin is 4711', MediaCount: 0 },
      },
    };
    expect((await gw.post('acme', 'observer', turnStart, token)).status).toBe(202);
    expect((await gw.post('acme', 'observer', { ...turnStart, id: 9 }, token)).status).toBe(200);
    await expect.poll(() => recorder().calls.length).toBe(2);
    expect(recorder().calls.map((c) => c.params.payload)).toEqual([
      { UserMessage: '', MediaCount: 0 },
      { UserMessage: '', MediaCount: 0 },
    ]);
    recorder().calls.length = 0;
    await gw.post('acme', 'watcher', turnStart, token);
    await expect.poll(() => recorder().calls.length).toBe(1);
    expect(recorder().calls[0].params.payload.UserMessage).toBe('my pin is 4711');
  });

  it('withholds text quoted in channel metadata from a tool hook', async () => {
    const params = paramsFrom('10-before-tool-respond-plugin-tool.jsonl', 'hook.before_tool');
    params.context.inbound.raw = { quote_text: 'my pin is 4711' };
    await gw.call('tools', 'hook.before_tool', params);
    expect(recorder().calls[0].params.context.inbound.raw).toEqual({ quote_text: '' });
    expect(recorder().calls[0].params.arguments).toEqual(params.arguments);
  });

  it('does not deliver events to a hook without observe', async () => {
    const dropped = async () =>
      Number(
        /hookgate_events_total\{[^}]*hook="tools"[^}]*outcome="dropped"[^}]*\} (\d+)/.exec(
          await fetchMetrics(gw.url, ADMIN),
        )?.[1] ?? 0,
      );
    const before = await dropped();
    const token = await gw.token();
    const res = await gw.post(
      'acme',
      'tools',
      { jsonrpc: '2.0', method: 'hook.runtime_event', params: { id: 'evt-2' } },
      token,
    );
    expect(res.status).toBe(202);
    // The gateway counts the event it drops: once counted, it is never delivered.
    await expect.poll(dropped, { timeout: 10_000 }).toBe(before + 1);
    expect(recorder().calls).toEqual([]);
  });
});

describe('policy over HTTP', () => {
  it('strips a respond for a host tool and writes one audit line for it', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'rm done', is_error: false } });
    const body = await gw.call(
      'tools',
      'hook.before_tool',
      paramsFrom('11-before-tool-deny.jsonl', 'hook.before_tool'),
    );
    expect(body.result).toEqual({ action: 'continue' });
    const audit = gw.logs.audits().find((a) => a.rule === 'respond_tool_not_granted');
    expect(audit).toMatchObject({
      tenant: 'acme',
      hook: 'tools',
      method: 'hook.before_tool',
      tool: 'exec',
      answered: 'continue',
    });
    expect(audit!.decision_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("narrows the tools by the token's tools claim", async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'sunny' } });
    const params = paramsFrom('10-before-tool-respond-plugin-tool.jsonl', 'hook.before_tool');
    const narrow = await gw.token({ tools: ['get_time'] });
    expect((await gw.call('tools', 'hook.before_tool', params, { token: narrow })).result).toEqual({
      action: 'continue',
    });
    expect((await gw.call('tools', 'hook.before_tool', params)).result.action).toBe('respond');
  });

  it('sends no conversation text to a hook without conversation_access', async () => {
    await gw.call('llm', 'hook.before_llm', paramsFrom('07-after-llm-modify.jsonl', 'hook.before_llm'));
    await gw.call('llm', 'hook.after_llm', paramsFrom('07-after-llm-modify.jsonl', 'hook.after_llm'));
    const seen = JSON.stringify(recorder().calls);
    expect(seen).not.toContain('What is my API key?');
    expect(seen).not.toContain('sk-live-1234');
    expect(seen).not.toContain('You are PicoClaw');
    expect(recorder().calls[0].params.model).toBe('gpt-4o-mini');
  });

  it('sends it to a hook with conversation_access', async () => {
    await gw.call('reader', 'hook.before_llm', paramsFrom('07-after-llm-modify.jsonl', 'hook.before_llm'));
    expect(JSON.stringify(recorder().calls)).toContain('What is my API key?');
  });

  it('answers approvals explicitly even when the hook answers nothing', async () => {
    recorder().answer = () => undefined;
    const body = await gw.call(
      'approver',
      'hook.approve_tool',
      paramsFrom('13-approve-true.jsonl', 'hook.approve_tool'),
    );
    expect(body.result).toEqual({ approved: false });
  });
});

describe('describe, health, metrics, openapi', () => {
  it('describes a hook to a token that may call it', async () => {
    const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/tools`, {
      headers: { authorization: `Bearer ${await gw.token()}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      tenant: 'acme',
      hook: 'tools',
      protocol_version: 1,
      modes: ['tool'],
      tools: ['get_weather', 'get_time'],
      on_failure: 'open',
      on_violation: 'strip',
      timeout_ms: 4000,
      limits: { max_body_bytes: 65536 },
      backend: { type: 'module', ready: true },
    });
    expect((await fetch(`${gw.url}/v1/tenants/acme/hooks/tools`)).status).toBe(401);
  });

  it('serves /healthz, /readyz, /metrics and /openapi.json', async () => {
    expect(await (await fetch(`${gw.url}/healthz`)).json()).toEqual({ ok: true });
    expect((await fetch(`${gw.url}/readyz`)).status).toBe(200);
    const metrics = await (
      await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).text();
    expect(metrics).toMatch(
      /hookgate_calls_total\{tenant="acme",hook="tools",method="hook.before_tool",outcome="(ok|refused)"\} \d+/,
    );
    expect(metrics).toMatch(/hookgate_policy_refusals_total\{[^}]*rule="respond_tool_not_granted"\} \d+/);
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toContain('/v1/tenants/{tenant}/hooks/{hook}');
  });

  it('answers unknown routes with a JSON 404', async () => {
    const res = await fetch(`${gw.url}/nope`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('not_found');
  });

  it('tags every response with x-request-id: the caller’s when well-formed, a fresh UUID otherwise', async () => {
    const token = await gw.token();
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.before_tool', params: { tool: 'x' } });
    const send = (headers: Record<string, string>, path = '/v1/tenants/acme/hooks/tools') =>
      fetch(`${gw.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

    const given = await send({ authorization: `Bearer ${token}`, 'x-request-id': 'req-42' });
    expect(given.status).toBe(200);
    expect(given.headers.get('content-type')).toBe('application/json');
    expect(given.headers.get('x-request-id')).toBe('req-42');
    const fresh = await send({ authorization: `Bearer ${token}`, 'x-request-id': 'bad id\twith space' });
    expect(fresh.headers.get('x-request-id')).toMatch(uuid);
    const refused = await send({ 'x-request-id': 'req-43' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('req-43');
    const health = await fetch(`${gw.url}/healthz`, { headers: { 'x-request-id': 'req-44' } });
    expect(health.headers.get('x-request-id')).toBe('req-44');
    const missing = await fetch(`${gw.url}/nope`);
    expect(missing.headers.get('x-request-id')).toMatch(uuid);
    // The request log line carries the id and the path without its query.
    await fetch(`${gw.url}/healthz?token=abc`, { headers: { 'x-request-id': 'req-45' } });
    await expect
      .poll(() => gw.logs.lines.find((l) => l.msg === 'request' && l.request_id === 'req-45'))
      .toMatchObject({ path: '/healthz', status: 200 });
  });

  // The call routes run without the app's middleware (server/alone-router.ts) and give themselves
  // the same request context: every answer they make, and every log line, as for any other route.
  it('gives the call routes the same request context: the id on every answer they make, a log line each', async () => {
    const token = await gw.token();
    const send = (id: string, body: string, authorised = true, route = '') =>
      fetch(`${gw.url}/v1/tenants/acme/hooks/tools${route}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-request-id': id,
          ...(authorised ? { authorization: `Bearer ${token}` } : {}),
        },
        body,
      });
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.before_tool', params: { tool: 'x' } });
    const claudeCode = JSON.stringify({
      session_id: 's1',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    });
    const answers = {
      'req-50': await send('req-50', call),
      'req-51': await send('req-51', '{"jsonrpc":"2.0","id":1,'),
      'req-52': await send('req-52', JSON.stringify({ jsonrpc: '2.0', method: 'hook.event', params: {} })),
      'req-53': await send('req-53', call, false),
      // A host's route is a call route too.
      'req-54': await send('req-54', claudeCode, true, '/claude-code'),
      'req-55': await send('req-55', claudeCode, false, '/claude-code'),
      'req-56': await send('req-56', '{', true, '/claude-code'),
    };
    const statuses = {
      'req-50': 200,
      'req-51': 400,
      'req-52': 202,
      'req-53': 401,
      'req-54': 200,
      'req-55': 401,
      'req-56': 400,
    } as const;
    const paths = { 'req-54': '/claude-code', 'req-55': '/claude-code', 'req-56': '/claude-code' };
    for (const [id, res] of Object.entries(answers)) {
      expect({ id, status: res.status, header: res.headers.get('x-request-id') }).toEqual({
        id,
        status: statuses[id as keyof typeof statuses],
        header: id,
      });
      await res.text();
      await expect
        .poll(() => gw.logs.lines.find((l) => l.msg === 'request' && l.request_id === id))
        .toMatchObject({
          method: 'POST',
          path: `/v1/tenants/acme/hooks/tools${paths[id as keyof typeof paths] ?? ''}`,
          status: res.status,
        });
    }
  });
});
