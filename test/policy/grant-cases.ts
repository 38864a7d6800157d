/**
 * One config with conditional grants and a table of hook answers with the decisions it must give,
 * run by the Node suite (test/policy/grant-cases.test.ts) and the workerd suite
 * (test/worker/grants.test.ts): the same config gives the same decisions on both runtimes. No
 * node:* imports here.
 */
import { compileConfig } from '../../src/config/compile.js';
import type { HookRuntime } from '../../src/config/runtime.js';
import { applyPolicy, type CallFacts, effectivePolicy } from '../../src/policy/index.js';

const GIT_READ = 'args.command.startsWith("git status") || args.command.startsWith("git diff")';
const API = 'args.url.startsWith("https://api.acme.test/")';
const GIT = 'args.command.startsWith("git ")';

export const GRANT_CONFIG = {
  tenants: {
    acme: {
      auth: { keys: [{ alg: 'HS256', secret: 'grant-cases-secret-0123456789abcdefghij' }] },
      hooks: {
        guard: {
          backend: { type: 'module', module: 'x.js' },
          modes: ['tool', 'approve'],
          tools: [{ name: 'http_get', when: API }],
          grants: {
            approve_tools: ['Read', { tool: 'Bash', when: GIT_READ }],
            rewrite_tools: [{ tool: 'exec', when: GIT }],
          },
        },
      },
    },
  },
};

export interface GrantCase {
  name: string;
  method: 'hook.approve_tool' | 'hook.before_tool';
  tool: string;
  args: Record<string, unknown>;
  answer: Record<string, unknown>;
  hostApproves?: boolean;
  tokenTools?: string[];
  /** The answer that leaves for the host, and the rule refused (none: passed as the hook gave it). */
  expect: { result: Record<string, unknown>; rule?: string };
}

const ALLOW = { approved: true };
const RESPOND = { action: 'respond', result: { for_llm: 'page' } };
const modify = (command: string) => ({ action: 'modify', call: { tool: 'exec', arguments: { command } } });
const NEUTRAL = { action: 'continue' };

export const GRANT_CASES: GrantCase[] = [
  {
    name: 'approve Bash: git status',
    method: 'hook.approve_tool',
    tool: 'Bash',
    args: { command: 'git status' },
    answer: ALLOW,
    hostApproves: true,
    expect: { result: ALLOW },
  },
  {
    name: 'approve Bash: git diff',
    method: 'hook.approve_tool',
    tool: 'Bash',
    args: { command: 'git diff HEAD~1' },
    answer: ALLOW,
    hostApproves: true,
    expect: { result: ALLOW },
  },
  {
    name: 'approve Bash: git push is refused',
    method: 'hook.approve_tool',
    tool: 'Bash',
    args: { command: 'git push --force' },
    answer: ALLOW,
    hostApproves: true,
    expect: { result: NEUTRAL, rule: 'approve_tool_not_granted' },
  },
  {
    name: 'approve Bash: a condition that errs refuses',
    method: 'hook.approve_tool',
    tool: 'Bash',
    args: { cmd: 'git status' },
    answer: ALLOW,
    hostApproves: true,
    expect: { result: NEUTRAL, rule: 'approve_tool_not_granted' },
  },
  {
    name: 'approve Bash: narrowed away by the token',
    method: 'hook.approve_tool',
    tool: 'Bash',
    args: { command: 'git status' },
    answer: ALLOW,
    hostApproves: true,
    tokenTools: ['Read'],
    expect: { result: NEUTRAL, rule: 'approve_tool_not_granted' },
  },
  {
    name: 'approve Read: a plain name, whatever the arguments',
    method: 'hook.approve_tool',
    tool: 'Read',
    args: { path: '/etc/shadow' },
    answer: ALLOW,
    hostApproves: true,
    expect: { result: ALLOW },
  },
  {
    name: 'respond http_get: allowed prefix',
    method: 'hook.before_tool',
    tool: 'http_get',
    args: { url: 'https://api.acme.test/v1' },
    answer: RESPOND,
    expect: { result: RESPOND },
  },
  {
    name: 'respond http_get: any other URL is refused',
    method: 'hook.before_tool',
    tool: 'http_get',
    args: { url: 'https://api.acme.test.evil/' },
    answer: RESPOND,
    expect: { result: NEUTRAL, rule: 'respond_tool_not_granted' },
  },
  {
    name: 'rewrite exec: git into git',
    method: 'hook.before_tool',
    tool: 'exec',
    args: { command: 'git status' },
    answer: modify('git status --short'),
    expect: {
      result: {
        action: 'modify',
        call: { meta: {}, tool: 'exec', arguments: { command: 'git status --short' } },
      },
    },
  },
  {
    name: 'rewrite exec: git into rm is refused on the new arguments',
    method: 'hook.before_tool',
    tool: 'exec',
    args: { command: 'git status' },
    answer: modify('rm -rf /'),
    expect: { result: NEUTRAL, rule: 'rewrite_arguments_not_granted' },
  },
];

const FACTS: CallFacts = { host: 'claude-code', claims: { sub: 'dev' }, now: Date.UTC(2026, 10, 27) };

let hook: HookRuntime | undefined;

/** What the gateway decides for one case: the answer sent and the first rule refused. */
export function decideCase(c: GrantCase): { result: Record<string, unknown>; rule?: string } {
  hook ??= compileConfig(GRANT_CONFIG, (r) => r)
    .tenants.get('acme')!
    .hooks.get('guard')!;
  const params = { meta: {}, tool: c.tool, arguments: c.args };
  const out = applyPolicy(
    c.method,
    effectivePolicy(hook, c.tokenTools),
    params,
    params,
    c.answer,
    { hostApproves: c.hostApproves },
    FACTS,
  );
  if (!out.ok) throw new Error(out.why);
  const rule = out.violations[0]?.rule;
  return rule === undefined ? { result: out.result } : { result: out.result, rule };
}
