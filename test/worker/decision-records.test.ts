import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import schema from '../../schemas/decision-record.v1.json';
import { decisionRecordV1 } from '../../src/server/decision-record.js';
import { createWorker } from '../../src/worker/worker.js';
import { testModules } from './entry.js';
import { ACME_KEY, CONFIG, OTHER_KEY } from './fixtures.js';
import { beforeTool, HOOK_URL, rpc, token } from './helpers.js';

/**
 * Decision records in workerd: `server.decisions.to: stdout` is the console there, one JSON line
 * per hook call with the fields of the Node gateway's records (schemas/decision-record.v1.json),
 * written after the answer and kept alive by waitUntil.
 */
function workerWithRecords(decisions: Record<string, unknown>) {
  const lines: string[] = [];
  const worker = createWorker({ modules: testModules, sink: (line) => lines.push(line) });
  const env = {
    HOOKGATE_CONFIG: JSON.stringify({ ...CONFIG, server: { ...CONFIG.server, decisions } }),
    ACME_KEY,
    OTHER_KEY,
  };
  const post = async (url: string, body: unknown) => {
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
        body: JSON.stringify(body),
      }),
      env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  };
  const records = () => lines.map((l) => JSON.parse(l)).filter((l) => l.schema === 'hookgate.decision/v1');
  return { post, records, lines };
}

describe('decision records in workerd', () => {
  it('logs one record per hook call, with the fields of the v1 schema', async () => {
    const { post, records } = workerWithRecords({ to: 'stdout' });
    expect(
      (await post(HOOK_URL, rpc('hook.before_tool', beforeTool('get_weather', { city: 'Oslo' })))).status,
    ).toBe(200);
    // The hook answers respond for a tool it does not own: changed to continue, and audited.
    expect(
      (await post(HOOK_URL, rpc('hook.before_tool', beforeTool('bash', { command: 'id' })))).status,
    ).toBe(200);
    const claude = await post(`${HOOK_URL}/claude-code`, {
      session_id: 's1',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_1',
    });
    expect(claude.status).toBe(200);
    const all = records();
    expect(all.map((r) => [r.dialect, r.tool, r.kind])).toEqual([
      ['picoclaw', 'get_weather', 'passed'],
      ['picoclaw', 'bash', 'changed'],
      ['claude-code', 'Bash', 'changed'],
    ]);
    const properties = Object.keys(schema.properties);
    for (const r of all) {
      expect(decisionRecordV1.safeParse(r).success).toBe(true);
      for (const key of schema.required) expect(r).toHaveProperty(key);
      for (const key of Object.keys(r)) expect(properties).toContain(key);
      expect(r.args_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(r.config_revision).toMatch(/^[0-9a-f]{16}$/);
      expect(r).not.toHaveProperty('params');
    }
    expect(all[1]).toMatchObject({
      hook_verdict: 'respond',
      verdict: 'continue',
      violations: [{ rule: 'respond_tool_not_granted', tool: 'bash' }],
    });
  });

  it('writes none when off, and refuses file: (a Worker has no files)', async () => {
    const off = workerWithRecords({ to: 'off' });
    expect(
      (await off.post(HOOK_URL, rpc('hook.before_tool', beforeTool('get_weather', { city: 'Oslo' })))).status,
    ).toBe(200);
    expect(off.records()).toEqual([]);
    const file = workerWithRecords({ to: 'file:decisions.ndjson' });
    const res = await file.post(HOOK_URL, rpc('hook.before_tool', beforeTool('get_weather')));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'config_invalid', message: 'server.decisions.to' } });
  });
});
