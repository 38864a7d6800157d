/**
 * Grants with conditions through a real gateway on 127.0.0.1 (real JWTs, a module hook whose
 * answers each test scripts): Claude Code's permission request, the native route's respond, the
 * MCP route and OpenClaw's execute_tool. Each refusal is checked in what the host gets, in the
 * audit line and in the decision record.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claudeCodeBash } from '../helpers/claude-code-fixtures.js';
import { exchange } from '../helpers/command-host-fixtures.js';
import { compileTestConfig, startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';
import { mcpClient } from '../mcp/helpers.js';

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const GIT_STATUS = 'args.command.startsWith("git status")';
const API = 'args.url.startsWith("https://api.acme.test/") && claims.sub == "dev" && host == "picoclaw"';
const MCP_API = 'args.url.startsWith("https://api.acme.test/")';
let gw: TestGateway;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-grants-'));
  file = join(dir, 'decisions.ndjson');
  gw = await startTestGateway({
    server: { decisions: { to: `file:${file}`, include_args: true } },
    tenants: {
      acme: tenantDoc({
        guard: {
          ...rec,
          modes: ['tool', 'approve'],
          grants: { approve_tools: [{ tool: 'Bash', when: GIT_STATUS }] },
        },
        fetcher: { ...rec, modes: ['tool'], tools: [{ name: 'http_get', when: API }] },
        mcp: { ...rec, modes: ['tool'], tools: ['get_weather', { name: 'http_get', when: MCP_API }] },
      }),
    },
  });
});
afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  recorder().calls.length = 0;
  recorder().answer = () => ({ action: 'continue' });
});

async function post(hook: string, path: string, body: unknown) {
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await gw.token()}` },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const claudeCode = (event: string, command: string) => claudeCodeBash(command, event);

async function records(): Promise<Record<string, any>[]> {
  await gw.decisions.flush();
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** The audit lines and the decision record of the calls made by `run`. */
async function afterwards(run: () => Promise<unknown>) {
  const audits = gw.logs.audits().length;
  const recs = (await records()).length;
  await run();
  return { audits: gw.logs.audits().slice(audits), records: (await records()).slice(recs) };
}

describe('Claude Code: approve_tools: [{ tool: Bash, when: git status }]', () => {
  const ALLOW = {
    hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
  };

  it('a hook’s allow of `git status` skips the person’s prompt', async () => {
    recorder().answer = () => ({ approved: true });
    const r = await post('guard', '/claude-code', claudeCode('PermissionRequest', 'git status --short'));
    expect(r).toEqual({ status: 200, body: ALLOW });
    expect(recorder().calls.map((c) => c.method)).toEqual(['hook.approve_tool']);
  });

  it('its allow of `git push` is refused: Claude Code gets no verdict and asks the person', async () => {
    recorder().answer = () => ({ approved: true });
    let r: Awaited<ReturnType<typeof post>> | undefined;
    const seen = await afterwards(async () => {
      r = await post('guard', '/claude-code', claudeCode('PermissionRequest', 'git push --force'));
    });
    expect(r).toEqual({ status: 200, body: {} });
    const detail = `hook "guard" may not approve tool "Bash" (approve_tools[0] (Bash when ${GIT_STATUS}): condition is false)`;
    expect(seen.audits).toEqual([
      expect.objectContaining({
        dialect: 'claude-code',
        rule: 'approve_tool_not_granted',
        tool: 'Bash',
        detail,
        answered: '{}',
      }),
    ]);
    expect(seen.records).toEqual([
      expect.objectContaining({
        dialect: 'claude-code',
        kind: 'changed',
        hook_verdict: 'approved:true',
        verdict: 'continue',
        violations: [{ rule: 'approve_tool_not_granted', tool: 'Bash', detail }],
      }),
    ]);
  });

  it('PreToolUse never carries an allow, granted or not: the prompt stays Claude Code’s', async () => {
    recorder().answer = () => ({ action: 'continue' });
    for (const command of ['git status', 'git push']) {
      const r = await post('guard', '/claude-code', claudeCode('PreToolUse', command));
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain('allow');
    }
  });
});

describe('Codex: the same approve_tools entry behind its PermissionRequest allow', () => {
  // Codex's PermissionRequest stdin is its PreToolUse shape under that event (as in test/hosts/command/route.test.ts).
  const permissionRequest = (command: string) => {
    const body = JSON.parse(exchange('codex', '01').stdin);
    return { ...body, hook_event_name: 'PermissionRequest', tool_input: { ...body.tool_input, command } };
  };

  it('allows git status and gives no verdict for git push, audited with dialect codex', async () => {
    recorder().answer = () => ({ approved: true });
    const ok = await post('guard', '/codex', permissionRequest('git status'));
    expect(ok.body).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    const seen = await afterwards(async () => {
      expect((await post('guard', '/codex', permissionRequest('git push'))).body).toEqual({});
    });
    expect(seen.audits).toEqual([
      expect.objectContaining({
        dialect: 'codex',
        rule: 'approve_tool_not_granted',
        detail: expect.stringContaining('approve_tools[0] (Bash when'),
      }),
    ]);
  });
});

describe('native route: tools: [{ name: http_get, when: an allowed URL prefix }]', () => {
  const respond = { action: 'respond', result: { for_llm: 'page', silent: false, is_error: false } };
  const call = (url: string) =>
    gw.call('fetcher', 'hook.before_tool', { tool: 'http_get', arguments: { url } });

  it('answers a call to the allowed prefix with the hook’s respond (the token’s sub and the host seen)', async () => {
    recorder().answer = () => respond;
    expect((await call('https://api.acme.test/v1/items')).result).toEqual(respond);
  });

  it('refuses a respond to any other URL, audited and recorded naming the entry', async () => {
    recorder().answer = () => respond;
    let answer: any;
    const seen = await afterwards(async () => {
      answer = await call('https://evil.test/steal');
    });
    expect(answer.result).toEqual({ action: 'continue' });
    const detail = `hook "fetcher" may not answer tool "http_get" (tools[0] (http_get when ${API}): condition is false)`;
    expect(seen.audits).toEqual([
      expect.objectContaining({ dialect: 'picoclaw', rule: 'respond_tool_not_granted', detail }),
    ]);
    expect(seen.records[0]).toMatchObject({ kind: 'changed', violations: [{ detail }] });
  });
});

describe('MCP tools/call: a tools condition is checked before the hook is asked', () => {
  it('calls the hook for an allowed URL, refuses any other as an unknown tool without asking it', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'page' } });
    const client = await mcpClient(gw, 'mcp');
    const ok = await client.callTool({ name: 'http_get', arguments: { url: 'https://api.acme.test/a' } });
    expect(ok.content).toEqual([{ type: 'text', text: 'page' }]);
    expect(recorder().calls).toHaveLength(1);
    recorder().calls.length = 0;
    let refused: any;
    const seen = await afterwards(async () => {
      refused = await client
        .callTool({ name: 'http_get', arguments: { url: 'https://evil.test/' } })
        .catch((e) => e);
    });
    await client.close();
    expect(String(refused?.message ?? refused)).toContain('Unknown tool: http_get');
    expect(recorder().calls).toEqual([]);
    expect(seen.audits).toEqual([
      expect.objectContaining({
        dialect: 'mcp',
        rule: 'tool_not_granted',
        tool: 'http_get',
        detail: `tool "http_get" of hook "mcp" is not granted on this call (tools[1] (http_get when ${MCP_API}): condition is false)`,
        answered: 'error:unknown_tool',
      }),
    ]);
    expect(seen.records).toEqual([expect.objectContaining({ dialect: 'mcp', kind: 'refused' })]);
  });
});

describe('OpenClaw execute_tool: the same check before the hook is asked', () => {
  const execute = (url: string) => ({
    hook: 'hookgate.execute_tool',
    event: { toolName: 'http_get', params: { url }, toolCallId: 'call_1' },
    ctx: { agentId: 'main', sessionKey: 'agent:main:main' },
  });

  it('runs the hook’s tool on an allowed URL and refuses any other without asking the hook', async () => {
    recorder().answer = () => ({ action: 'respond', result: { for_llm: 'page' } });
    const ok = await post('mcp', '/openclaw', execute('https://api.acme.test/a'));
    expect(ok.body.details.ok).toBe(true);
    recorder().calls.length = 0;
    const refused = await post('mcp', '/openclaw', execute('https://evil.test/'));
    expect(refused.status).toBe(200);
    expect(refused.body.details).toMatchObject({ ok: false, error: 'Unknown tool: http_get' });
    expect(recorder().calls).toEqual([]);
  });
});

describe('describe (GET on the hook) lists tool names, conditions or not', () => {
  it('names the tools of conditional entries as it names plain ones', async () => {
    const get = async (hook: string) =>
      (await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}`, {
        headers: { authorization: `Bearer ${await gw.token()}` },
      }).then((r) => r.json())) as Record<string, any>;
    expect((await get('mcp')).tools).toEqual(['get_weather', 'http_get']);
    expect((await get('guard')).grants.approve_tools).toEqual(['Bash']);
  });
});

describe('reload: conditions are compiled with the config that carries them', () => {
  it('a changed condition decides from the reload on; a bad one is refused naming its path', async () => {
    const doc = (when: string) => ({
      tenants: {
        acme: tenantDoc({
          guard: { ...rec, modes: ['approve'], grants: { approve_tools: ['Read', { tool: 'Bash', when }] } },
        }),
      },
    });
    const state = { current: doc(GIT_STATUS) };
    const local = await startTestGateway(state.current, {
      loadConfig: () => ({ config: compileTestConfig(state.current) }),
    });
    try {
      recorder().answer = () => ({ approved: true });
      const ask = async (command: string) => {
        const res = await fetch(`${local.url}/v1/tenants/acme/hooks/guard/claude-code`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await local.token()}` },
          body: JSON.stringify(claudeCode('PermissionRequest', command)),
        });
        return res.json();
      };
      expect(await ask('git log')).toEqual({});
      state.current = doc('args.command.startsWith("git log")');
      expect((await local.reload()).ok).toBe(true);
      expect(await ask('git log')).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'allow' } } });

      const before = local.live.current;
      state.current = doc('args.command.startsWith(');
      const outcome = await local.reload();
      expect(outcome.ok).toBe(false);
      expect(!outcome.ok && outcome.issues.map((i) => i.path)).toEqual([
        'tenants.acme.hooks.guard.grants.approve_tools.1.when',
      ]);
      expect(local.live.current).toBe(before);
      expect(await ask('git log')).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'allow' } } });
    } finally {
      await local.close();
    }
  });
});
