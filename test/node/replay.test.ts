/**
 * `hookgate replay`: a real gateway records calls (server.decisions to a file, include_args), then
 * the log is replayed against the same config (nothing changes, exit 0) and against one that
 * narrows a grant and drops a rewrite grant (exactly the calls those govern change, exit 1), and
 * bad input is named line by line.
 */
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { REPO, SECRET, startTestGateway } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

const hookDoc = (tools: string[], rewriteTools: string[]) => ({
  backend: { type: 'module', module: join(REPO, 'test/helpers/recording-hook.ts') },
  modes: ['tool'],
  tools,
  grants: { rewrite_tools: rewriteTools },
});
const configDoc = (tools: string[], rewriteTools: string[]) => ({
  tenants: {
    acme: {
      auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: SECRET }] },
      hooks: { guard: hookDoc(tools, rewriteTools) },
    },
  },
});

let dir: string;
let log: string;
/** What the test sent, per tool: the independent count the replay must agree with. */
const sent: Record<string, number> = { get_weather: 5, lookup: 3, exec: 4 };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-replay-'));
  log = join(dir, 'decisions.ndjson');
  const doc = configDoc(['get_weather', 'lookup'], ['exec']);
  writeFileSync(join(dir, 'same.yaml'), JSON.stringify(doc));
  writeFileSync(join(dir, 'new.yaml'), JSON.stringify(configDoc(['get_weather'], [])));
  writeFileSync(
    join(dir, 'broken.yaml'),
    JSON.stringify(configDoc(['get_weather'], [])).replace('"modes"', '"mode"'),
  );
  const gw = await startTestGateway({
    server: { decisions: { to: `file:${log}`, include_args: true } },
    tenants: doc.tenants,
  });
  recorder().answer = (_m, params) =>
    params.tool === 'exec'
      ? { action: 'modify', call: { ...params, arguments: { command: 'ls -la' } } }
      : { action: 'respond', result: { for_llm: `ran ${params.tool}` } };
  try {
    for (const [tool, n] of Object.entries(sent))
      for (let i = 0; i < n; i++) await gw.call('guard', 'hook.before_tool', { tool, arguments: { i } });
    // Not granted the approve mode, then or now: re-decided without asking the hook.
    await gw.call('guard', 'hook.approve_tool', { tool: 'exec', arguments: {} });
  } finally {
    await gw.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const replay = (...args: string[]) => runCli(['replay', ...args], { cwd: dir });

describe('hookgate replay', () => {
  it('changes nothing under the config that decided (exit 0)', async () => {
    const r = await replay('--log', 'decisions.ndjson', '--config', 'same.yaml');
    expect(r.err).toBe('');
    expect(r.out).toMatch(
      /^13 record\(s\): 13 re-decided, 0 changed, 13 unchanged, 0 not re-decided; 0 unreadable/,
    );
    expect(r.code).toBe(0);
  });

  it('reports exactly the calls a narrowed grant and a dropped rewrite grant change (exit 1)', async () => {
    const r = await replay('--log', 'decisions.ndjson', '--config', 'new.yaml', '--json');
    expect(r.code).toBe(1);
    const report = JSON.parse(r.out);
    expect(report.changed).toHaveLength(sent.lookup + sent.exec);
    expect(report.byRule).toEqual({
      'acme/guard/respond_tool_not_granted': sent.lookup,
      'acme/guard/rewrite_arguments_not_granted': sent.exec,
    });
    for (const c of report.changed) {
      expect(c.old).toEqual({ kind: 'passed', verdict: c.tool === 'lookup' ? 'respond' : 'modify' });
      expect(c.new).toEqual({ kind: 'changed', verdict: 'continue' });
    }
    const text = await replay('--log', 'decisions.ndjson', '--config', 'new.yaml');
    expect(text.out).toContain('  acme/guard/respond_tool_not_granted  3');
    expect(text.out).toMatch(
      /hook\.before_tool lookup: passed \(respond\) -> changed \(continue\) \[respond_tool_not_granted\]/,
    );
  });

  it('names every line it cannot read and exits 1; a config that does not load and a wrong call too', async () => {
    copyFileSync(log, join(dir, 'bad.ndjson'));
    const first = readFileSync(log, 'utf8').split('\n')[0];
    appendFileSync(join(dir, 'bad.ndjson'), `${first.slice(0, 40)}\n`);
    appendFileSync(
      join(dir, 'bad.ndjson'),
      `${first.replace('hookgate.decision/v1', 'hookgate.decision/v0')}\n`,
    );
    appendFileSync(join(dir, 'bad.ndjson'), `${JSON.stringify({ ...JSON.parse(first), kind: 'maybe' })}\n`);
    const r = await replay('--log', 'bad.ndjson', '--config', 'same.yaml');
    expect(r.code).toBe(1);
    expect(r.out).toContain('line 14: not JSON (a truncated or malformed line)');
    expect(r.out).toContain(
      'line 15: schema "hookgate.decision/v0" is not one this hookgate reads (hookgate.decision/v1)',
    );
    expect(r.out).toMatch(/line 16: kind: /);
    expect(r.out).toMatch(/; 3 unreadable line\(s\)/);

    const broken = await replay('--log', 'decisions.ndjson', '--config', 'broken.yaml');
    expect(broken.code).toBe(1);
    expect(broken.err).toContain('tenants.acme.hooks.guard.mode');
    expect((await replay('--config', 'same.yaml')).code).toBe(2);
    expect((await replay('--log', 'nope.ndjson', '--config', 'same.yaml')).code).toBe(2);
  });
});
