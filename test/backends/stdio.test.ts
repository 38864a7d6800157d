import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

const SCRIPT = join(import.meta.dirname, '..', 'helpers', 'misbehaving-hook.mjs');
const TOOLS = [
  'repeated',
  'proto',
  'ok',
  'pid',
  'nojsonrpc',
  'hang',
  'crash',
  'garbage',
  'stderr:hello-from-the-hook',
  'big:2097152',
];
const slowTools = Array.from({ length: 8 }, (_, i) => `slow:${(8 - i) * 15}`);
let gw: TestGateway;

const hook = (extra: Record<string, unknown> = {}) => ({
  backend: { type: 'stdio', command: [process.execPath, SCRIPT] },
  modes: ['tool', 'approve'],
  tools: [...TOOLS, ...slowTools],
  timeout_ms: 800,
  approval_timeout_ms: 800,
  ...extra,
});

const call = (h: string, tool: string, method = 'hook.before_tool') =>
  gw.call(h, method, { tool, arguments: {} });

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: { acme: tenantDoc({ open: hook(), closed: hook({ on_failure: 'closed' }), crashy: hook() }) },
  });
});
afterAll(() => gw?.close());

describe('stdio backend: hosting an unmodified PicoClaw hook process', () => {
  it('multiplexes calls in flight and matches answers by id, in any order', async () => {
    const answers = await Promise.all(slowTools.map((t) => call('open', t)));
    expect(answers.map((a) => a.result.result.for_llm)).toEqual(
      slowTools.map((t) => `slept ${t.split(':')[1]}`),
    );
  });

  it('answers a hung call by the failure mode within timeout_ms', async () => {
    const started = Date.now();
    const open = await call('open', 'hang');
    expect(open.result).toEqual({ action: 'continue' });
    const closed = await call('closed', 'hang');
    expect(closed.result).toMatchObject({ action: 'deny_tool', reason: expect.stringMatching(/timed out/) });
    const approval = await call('open', 'hang', 'hook.approve_tool');
    expect(approval.result).toMatchObject({ approved: false });
    expect(Date.now() - started).toBeLessThan(3 * 800 + 1500);
  });

  it('takes a reply that leaves out "jsonrpc", as PicoClaw does', async () => {
    const started = Date.now();
    expect((await call('closed', 'nojsonrpc')).result).toEqual({
      action: 'respond',
      result: { for_llm: 'no jsonrpc' },
    });
    expect(Date.now() - started).toBeLessThan(800);
  });

  it('never turns an answer Go reads as a denial into an approval', async () => {
    // A repeated key: JSON.parse keeps the first place and the last value; Go applies keys in order.
    const repeated = await call('open', 'repeated', 'hook.approve_tool');
    expect(repeated.result).toMatchObject({ approved: false, reason: expect.stringMatching(/failed/) });
    expect(gw.logs.lines).toContainEqual(
      expect.objectContaining({
        hook: 'open',
        code: 'BACKEND_BAD_REPLY',
        why: expect.stringContaining('approved'),
      }),
    );
    // "__PROTO__" is no field to Go; lowercased and assigned in JS it would become the prototype.
    expect((await call('open', 'proto', 'hook.approve_tool')).result).toEqual({ approved: false });
  });

  it('answers garbage by the failure mode', async () => {
    expect((await call('closed', 'garbage')).result.action).toBe('deny_tool');
    expect(gw.logs.lines.some((l) => l.msg === 'hook stdout line ignored' && l.hook === 'closed')).toBe(true);
  });

  it("passes replies over 1 MiB (the gateway is not PicoClaw's 1 MiB reader)", async () => {
    const body = await call('open', 'big:2097152');
    expect(body.result.result.for_llm).toHaveLength(2_097_152);
  });

  it("logs the hook's stderr, tagged with tenant and hook", async () => {
    await call('open', 'stderr:hello-from-the-hook');
    expect(gw.logs.lines).toContainEqual(
      expect.objectContaining({ tenant: 'acme', hook: 'open', stderr: 'hello-from-the-hook' }),
    );
  });

  it('answers pending calls at once when the process dies, then restarts it', async () => {
    const before = Number((await call('crashy', 'pid')).result.result.for_llm);
    const started = Date.now();
    const [pending, crash, approval] = await Promise.all([
      call('crashy', 'slow:600'),
      call('crashy', 'crash'),
      call('crashy', 'hang', 'hook.approve_tool'),
    ]);
    // slow:600 would have answered respond by itself at 600 ms: continue proves the crash answered it.
    expect(Date.now() - started).toBeLessThan(1500);
    expect(pending.result).toEqual({ action: 'continue' });
    expect(crash.result).toEqual({ action: 'continue' });
    expect(approval.result).toMatchObject({ approved: false });
    await expect
      .poll(async () => (await call('crashy', 'pid')).result.result?.for_llm, {
        timeout: 5000,
        interval: 100,
      })
      .toMatch(/^\d+$/);
    const after = Number((await call('crashy', 'pid')).result.result.for_llm);
    expect(after).not.toBe(before);
    expect(gw.logs.lines.some((l) => l.msg === 'hook process exited' && l.hook === 'crashy')).toBe(true);
  });

  it('stops the process on shutdown', async () => {
    const pid = Number((await call('open', 'pid')).result.result.for_llm);
    const other = await startTestGateway({ tenants: { acme: tenantDoc({ h: hook() }) } });
    const childPid = Number(
      (await other.call('h', 'hook.before_tool', { tool: 'pid' })).result.result.for_llm,
    );
    await other.close();
    expect(() => process.kill(childPid, 0)).toThrow();
    expect(() => process.kill(pid, 0)).not.toThrow();
  });
});
