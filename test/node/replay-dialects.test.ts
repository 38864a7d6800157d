/**
 * `hookgate replay` on records of every dialect: a real gateway records calls through each host's
 * route (server.decisions to a file, include_args), then the log is replayed under the same config
 * (nothing changes: each record is re-decided with its host's traits, so a host that approves by
 * itself or merges rewrites gets the decision it got), under a narrower approve_tools (only the
 * hosts whose approval a hook's allow skips change) and under a new rule (every call changes).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCodeBash } from '../helpers/claude-code-fixtures.js';
import { runCli } from '../helpers/cli.js';
import { exchange } from '../helpers/command-host-fixtures.js';
import { REPO, SECRET, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { preTool } from '../helpers/hermes-payloads.js';
import { loadOcFixtures } from '../helpers/openclaw-fixtures.js';
import { recorder } from '../helpers/recording-hook.js';
import { mcpClient } from '../mcp/helpers.js';

const COMMAND = 'echo hookgate-replay';
/** Each host's name for its shell tool, as its route hands it to the hook. */
const SHELL_TOOLS = ['exec', 'Bash', 'bash', 'terminal', 'run_shell_command'];
const backend = { type: 'module', module: join(REPO, 'test/helpers/recording-hook.ts') };
const configDoc = (over: { approveTools?: string[]; rules?: boolean } = {}) => ({
  tenants: {
    acme: {
      auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: SECRET }] },
      hooks: {
        guard: {
          backend,
          modes: ['tool', 'approve'],
          grants: { approve_tools: over.approveTools ?? SHELL_TOOLS, rewrite_tools: ['terminal'] },
          ...(over.rules
            ? {
                rules: [
                  {
                    name: 'no-replay',
                    kind: 'shell',
                    when: 'call.command.contains("hookgate-replay")',
                    action: 'deny',
                  },
                ],
              }
            : {}),
        },
        mcp: {
          backend,
          modes: ['tool'],
          tools: ['get_weather'],
          ...(over.rules
            ? {
                rules: [
                  { name: 'no-oslo', tool: 'get_weather', when: 'args.city == "Oslo"', action: 'deny' },
                ],
              }
            : {}),
        },
      },
    },
  },
});

let dir: string;
/** Each record's dialect, method and kind as the gateway decided it, by line. */
let recorded: { dialect: string; method: string; kind: string; verdict: string }[];

async function post(gw: TestGateway, hook: string, route: string, body: unknown) {
  const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/${hook}/${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await gw.token()}` },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${route} answered ${res.status}: ${await res.text()}`);
}

const claudeCode = (event: string) => claudeCodeBash(COMMAND, event);
const openclaw = () => {
  const body = structuredClone(
    loadOcFixtures().exchanges.find((x) => x.file.startsWith('01') && x.event === 'before_tool_call')!.body,
  ) as any;
  body.event.params.command = COMMAND;
  return body;
};
const commandHost = (host: 'codex' | 'copilot' | 'gemini', event?: string) => {
  const body = JSON.parse(exchange(host, '01').stdin.replace(/echo hookgate-e2e-[^"]*/, COMMAND));
  return event ? { ...body, hook_event_name: event } : body;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hookgate-replay-dialects-'));
  const log = join(dir, 'decisions.ndjson');
  writeFileSync(join(dir, 'same.yaml'), JSON.stringify(configDoc()));
  writeFileSync(join(dir, 'no-approvals.yaml'), JSON.stringify(configDoc({ approveTools: [] })));
  writeFileSync(join(dir, 'rules.yaml'), JSON.stringify(configDoc({ rules: true })));
  const gw = await startTestGateway({
    server: { decisions: { to: `file:${log}`, include_args: true } },
    tenants: configDoc().tenants,
  });
  recorder().answer = (method, params) => {
    if (method === 'hook.approve_tool') return { approved: true };
    if (params.tool === 'get_weather') return { action: 'respond', result: { for_llm: 'sunny' } };
    // A rewrite that drops the command: Hermes merges rewrites, so its route refuses this one.
    if (params.tool === 'terminal') return { action: 'modify', call: { tool: 'terminal', arguments: {} } };
    return { action: 'continue' };
  };
  try {
    await gw.call('guard', 'hook.before_tool', { tool: 'exec', arguments: { command: COMMAND } });
    await gw.call('guard', 'hook.approve_tool', { tool: 'exec', arguments: { command: COMMAND } });
    await post(gw, 'guard', 'claude-code', claudeCode('PreToolUse'));
    await post(gw, 'guard', 'claude-code', claudeCode('PermissionRequest'));
    await post(gw, 'guard', 'openclaw', openclaw());
    const hermes = preTool();
    hermes.tool_input = { command: COMMAND };
    await post(gw, 'guard', 'hermes', hermes);
    await post(gw, 'guard', 'codex', commandHost('codex'));
    await post(gw, 'guard', 'codex', commandHost('codex', 'PermissionRequest'));
    await post(gw, 'guard', 'copilot', commandHost('copilot'));
    await post(gw, 'guard', 'gemini', commandHost('gemini'));
    const client = await mcpClient(gw, 'mcp');
    await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
    await client.close();
    await gw.decisions.flush();
  } finally {
    await gw.close();
  }
  recorded = readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const replay = async (config: string) => {
  const r = await runCli(['replay', '--log', 'decisions.ndjson', '--config', config, '--json'], { cwd: dir });
  expect(r.err).toBe('');
  return { code: r.code, report: JSON.parse(r.out) };
};
/** The changed records as `dialect method: old kind (verdict) -> new kind (verdict)`, by line. */
const changes = (report: any) =>
  report.changed.map((c: any) => {
    const r = recorded[c.line - 1];
    return `${r.dialect} ${c.method}: ${c.old.kind} (${c.old.verdict}) -> ${c.new.kind} (${c.new.verdict})`;
  });

describe('hookgate replay on every dialect', () => {
  it('recorded a call through every route, each with its dialect', () => {
    expect(recorded.map((r) => `${r.dialect} ${r.method} ${r.kind} (${r.verdict})`)).toEqual([
      'picoclaw hook.before_tool passed (continue)',
      'picoclaw hook.approve_tool passed (approved:true)',
      'claude-code hook.before_tool passed (continue)',
      'claude-code hook.approve_tool passed (approved:true)',
      'openclaw hook.before_tool passed (continue)',
      'openclaw hook.approve_tool passed (approved:true)',
      // Refused where Hermes merges rewrites (rewrite_removes_argument): replay must know it does.
      'hermes hook.before_tool changed (continue)',
      'codex hook.before_tool passed (continue)',
      'codex hook.approve_tool passed (approved:true)',
      'copilot hook.before_tool passed (continue)',
      'copilot hook.approve_tool passed (approved:true)',
      'gemini hook.before_tool passed (continue)',
      'mcp hook.before_tool passed (respond)',
    ]);
  });

  it('re-decides every record under the config that decided, and nothing changes (exit 0)', async () => {
    const { code, report } = await replay('same.yaml');
    expect(report).toMatchObject({
      records: 13,
      redecided: 13,
      unchanged: 13,
      changed: [],
      notRedecided: [],
    });
    expect(code).toBe(0);
  });

  it('a narrower approve_tools changes only the approvals of hosts whose own approval an allow skips', async () => {
    const { code, report } = await replay('no-approvals.yaml');
    expect(code).toBe(1);
    // PicoClaw's and OpenClaw's approve_tool is the hook's to give: approve_tools does not govern it.
    expect(changes(report)).toEqual([
      'claude-code hook.approve_tool: passed (approved:true) -> changed (continue)',
      'codex hook.approve_tool: passed (approved:true) -> changed (continue)',
      'copilot hook.approve_tool: passed (approved:true) -> changed (continue)',
    ]);
    expect(report.byRule).toEqual({ 'acme/guard/approve_tool_not_granted': 3 });
  });

  it('a new rule denying the call changes every record of every dialect', async () => {
    const { code, report } = await replay('rules.yaml');
    expect(code).toBe(1);
    expect(report.notRedecided).toEqual([]);
    expect(changes(report)).toEqual([
      'picoclaw hook.before_tool: passed (continue) -> ruled (deny_tool)',
      'picoclaw hook.approve_tool: passed (approved:true) -> ruled (approved:false)',
      'claude-code hook.before_tool: passed (continue) -> ruled (deny_tool)',
      'claude-code hook.approve_tool: passed (approved:true) -> ruled (approved:false)',
      'openclaw hook.before_tool: passed (continue) -> ruled (deny_tool)',
      'openclaw hook.approve_tool: passed (approved:true) -> ruled (approved:false)',
      'hermes hook.before_tool: changed (continue) -> ruled (deny_tool)',
      'codex hook.before_tool: passed (continue) -> ruled (deny_tool)',
      'codex hook.approve_tool: passed (approved:true) -> ruled (approved:false)',
      'copilot hook.before_tool: passed (continue) -> ruled (deny_tool)',
      'copilot hook.approve_tool: passed (approved:true) -> ruled (approved:false)',
      'gemini hook.before_tool: passed (continue) -> ruled (deny_tool)',
      'mcp hook.before_tool: passed (respond) -> ruled (deny_tool)',
    ]);
    expect(report.byRule).toEqual({ 'acme/guard/gateway_rule': 12, 'acme/mcp/gateway_rule': 1 });
  });
});
