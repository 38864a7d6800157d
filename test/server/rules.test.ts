/**
 * Gateway rules through a real gateway on 127.0.0.1 (real JWTs, a module hook that records what
 * it is asked): one rule written once for any shell tool denies `rm -rf` on every host route
 * without the hook being asked; the same rule in shadow mode changes no host's answer and audits
 * what it would have done; a hook made only of rules answers by itself.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claudeCodeBash } from '../helpers/claude-code-fixtures.js';
import { exchange } from '../helpers/command-host-fixtures.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { preTool } from '../helpers/hermes-payloads.js';
import { loadOcFixtures } from '../helpers/openclaw-fixtures.js';
import { recorder } from '../helpers/recording-hook.js';
import { mcpClient } from '../mcp/helpers.js';

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' } };
const NO_RM_RF = {
  name: 'no-rm-rf',
  kind: 'shell',
  when: 'call.command.matches("rm\\\\s+-[a-z]*r[a-z]*f")',
  action: 'deny',
  reason: 'rm -rf is not allowed',
};
const RM = 'rm -rf /tmp/hookgate-rules';

let gw: TestGateway;
let dir: string;
let file: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-rules-'));
  file = join(dir, 'decisions.ndjson');
  gw = await startTestGateway({
    server: { decisions: { to: `file:${file}` } },
    tenants: {
      acme: tenantDoc({
        // The tool mode only: OpenClaw's and Copilot's routes also ask a hook with the approve mode.
        guard: { ...rec, modes: ['tool'], rules: [NO_RM_RF] },
        trial: { ...rec, modes: ['tool'], mode: 'shadow', rules: [NO_RM_RF] },
        weather: {
          ...rec,
          modes: ['tool'],
          tools: ['get_weather'],
          rules: [
            {
              name: 'no-atlantis',
              tool: 'get_weather',
              when: 'args.city == "Atlantis"',
              action: 'deny',
              reason: 'no such city',
            },
          ],
        },
        'rules-only': {
          backend: { type: 'rules' },
          modes: ['tool', 'approve'],
          grants: { approve_tools: ['Bash'] },
          rules: [
            NO_RM_RF,
            { name: 'ask-push', kind: 'shell', when: 'call.command.contains("git push")', action: 'ask' },
            { name: 'git-status', tool: 'Bash', when: 'args.command == "git status"', action: 'allow' },
          ],
        },
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

async function post(hook: string, route: string, body: unknown) {
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await gw.token()}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const claudeCode = (command: string) => claudeCodeBash(command);
const claudePermission = (command: string) => claudeCodeBash(command, 'PermissionRequest');
const openclaw = (command: string) => {
  const body = structuredClone(
    loadOcFixtures().exchanges.find((x) => x.file.startsWith('01') && x.event === 'before_tool_call')!.body,
  ) as any;
  body.event.params.command = command;
  return body;
};
const hermes = (command: string) => {
  const body = preTool();
  body.tool_input = { command };
  return body;
};
/** A CLI host's captured PreToolUse stdin, with its shell command replaced. */
const commandHost = (host: 'codex' | 'copilot' | 'gemini', command: string) =>
  exchange(host, '01').stdin.replace(/echo hookgate-e2e-[^"]*/, command);

/** Each host route, the tool call it sends for a shell command, and its answer when denied. */
const HOSTS: {
  host: string;
  send: (hook: string, command: string) => Promise<{ status: number; body: any }>;
  denied: unknown;
}[] = [
  {
    host: 'picoclaw',
    send: async (hook, command) => ({
      status: 200,
      body: (await gw.call(hook, 'hook.before_tool', { tool: 'exec', arguments: { command } })).result,
    }),
    denied: { action: 'deny_tool', reason: 'rm -rf is not allowed' },
  },
  {
    host: 'claude-code',
    send: (hook, command) => post(hook, 'claude-code', claudeCode(command)),
    denied: {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: 'rm -rf is not allowed',
      },
    },
  },
  {
    host: 'openclaw',
    send: (hook, command) => post(hook, 'openclaw', openclaw(command)),
    denied: { block: true, blockReason: 'rm -rf is not allowed' },
  },
  {
    host: 'hermes',
    send: (hook, command) => post(hook, 'hermes', hermes(command)),
    denied: { action: 'block', message: 'rm -rf is not allowed' },
  },
  ...(['codex', 'copilot', 'gemini'] as const).map((host) => ({
    host,
    send: (hook: string, command: string) => post(hook, host, commandHost(host, command)),
    denied: expect.stringContaining('rm -rf is not allowed'),
  })),
];

async function records(): Promise<Record<string, any>[]> {
  await gw.decisions.flush();
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe('one rule for any shell tool denies rm -rf on every host, without asking the hook', () => {
  for (const h of HOSTS) {
    it(h.host, async () => {
      const audits = gw.logs.audits().length;
      const recs = (await records()).length;
      const r = await h.send('guard', RM);
      expect(r.status).toBe(200);
      if (typeof h.denied === 'object' && h.denied !== null && !('asymmetricMatch' in h.denied)) {
        expect(r.body).toEqual(h.denied);
      } else {
        expect(JSON.stringify(r.body)).toEqual(h.denied);
      }
      expect(recorder().calls).toEqual([]);
      expect(gw.logs.audits().slice(audits)).toEqual([
        expect.objectContaining({
          dialect: h.host,
          rule: 'gateway_rule',
          detail: 'rule "no-rm-rf" (tenants.acme.hooks.guard.rules.0) denies: rm -rf is not allowed',
        }),
      ]);
      expect((await records()).slice(recs)).toEqual([
        expect.objectContaining({
          dialect: h.host,
          kind: 'ruled',
          hook_verdict: null,
          rules: [
            {
              name: 'no-rm-rf',
              path: 'tenants.acme.hooks.guard.rules.0',
              action: 'deny',
              mode: 'enforce',
              effect: 'decided',
            },
          ],
        }),
      ]);
    });
  }

  it('a command the rule does not match is the hook’s to answer', async () => {
    for (const h of HOSTS) {
      recorder().calls.length = 0;
      await h.send('guard', 'ls -la');
      expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool']);
    }
  });
});

describe('shadow mode changes no answer on any host, and audits what it would have done', () => {
  for (const h of HOSTS) {
    it(h.host, async () => {
      const neutral = await h.send('guard', 'ls -la');
      recorder().calls.length = 0;
      const audits = gw.logs.audits().length;
      const r = await h.send('trial', RM);
      // The same answer as for a command no rule matches: the hook's own (continue).
      expect(r).toEqual(neutral);
      expect(recorder().calls.map((c) => c.method)).toEqual(['hook.before_tool']);
      expect(gw.logs.audits().slice(audits)).toEqual([
        expect.objectContaining({
          dialect: h.host,
          rule: 'rule:no-rm-rf',
          shadow: true,
          detail: 'would deny: rule "no-rm-rf" (tenants.acme.hooks.trial.rules.0)',
        }),
      ]);
    });
  }

  it('counts it in hookgate_shadow_decisions_total', async () => {
    expect(await gw.metricsText()).toMatch(
      /hookgate_shadow_decisions_total\{tenant="acme",hook="trial",rule="rule:no-rm-rf"\} [1-9]/,
    );
  });
});

describe('the MCP route: a rule on the hook’s own tool', () => {
  it('refuses the call the rule denies without asking the hook, and answers the others', async () => {
    recorder().answer = (_m, params) => ({
      action: 'respond',
      result: { for_llm: `${params.arguments.city}: sunny` },
    });
    const client = await mcpClient(gw, 'weather');
    const ok = await client.callTool({ name: 'get_weather', arguments: { city: 'Berlin' } });
    expect(ok.content).toEqual([{ type: 'text', text: 'Berlin: sunny' }]);
    recorder().calls.length = 0;
    const denied = await client.callTool({ name: 'get_weather', arguments: { city: 'Atlantis' } });
    expect(denied.isError).toBe(true);
    expect(JSON.stringify(denied.content)).toContain('no such city');
    expect(recorder().calls).toEqual([]);
    await client.close();
  });
});

describe('a hook made only of rules (backend: rules)', () => {
  it('is ready at once: there is no process', async () => {
    const res = await fetch(`${gw.url}/readyz`);
    expect(res.status).toBe(200);
  });

  it('denies by its rules and otherwise has no objection (native route)', async () => {
    const deny = await gw.call('rules-only', 'hook.before_tool', {
      tool: 'exec',
      arguments: { command: RM },
    });
    expect(deny.result).toEqual({ action: 'deny_tool', reason: 'rm -rf is not allowed' });
    const ok = await gw.call('rules-only', 'hook.before_tool', {
      tool: 'exec',
      arguments: { command: 'ls' },
    });
    expect(ok.result).toEqual({ action: 'continue' });
  });

  it('on PicoClaw, approves nothing no rule allows (its approval is this call)', async () => {
    const r = await gw.call('rules-only', 'hook.approve_tool', {
      tool: 'exec',
      arguments: { command: 'ls' },
    });
    expect(r.result).toEqual({
      approved: false,
      reason: 'hookgate: no rule of hook "rules-only" approves this call',
    });
  });

  it('Claude Code: an ask rule is Claude Code’s own ask, with the reason', async () => {
    const r = await post('rules-only', 'claude-code', claudeCode('git push origin main'));
    expect(r.body).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'ask',
        permissionDecisionReason: 'rule "ask-push" asks for a person\'s approval',
      },
    });
  });

  it('the CLI hosts: Copilot’s and Gemini’s own ask; Codex has none for a hook, so no verdict', async () => {
    const reason = 'rule "ask-push" asks for a person\'s approval';
    expect(
      (await post('rules-only', 'copilot', commandHost('copilot', 'git push origin main'))).body,
    ).toEqual({
      permissionDecision: 'ask',
      permissionDecisionReason: reason,
    });
    expect((await post('rules-only', 'gemini', commandHost('gemini', 'git push origin main'))).body).toEqual({
      decision: 'ask',
      reason,
    });
    expect((await post('rules-only', 'codex', commandHost('codex', 'git push origin main'))).body).toEqual(
      {},
    );
  });

  it('Claude Code: an allow rule within approve_tools approves; a call no rule allows keeps the prompt', async () => {
    const allowed = await post('rules-only', 'claude-code', claudePermission('git status'));
    expect(allowed.body).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
    const other = await post('rules-only', 'claude-code', claudePermission('git log'));
    expect(other.body).toEqual({});
  });
});
