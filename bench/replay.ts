// `npm run bench:replay`: a recorded day of mixed traffic (100,000 decision records by default,
// `--records N`) replayed against a config that narrows one hook's tools and takes the llm mode
// from another; the report must list exactly the calls an independent count expects.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileConfig } from '../src/config/compile.js';
import { hostTraitsOf } from '../src/hosts/traits.js';
import { replayLog } from '../src/node/replay.js';
import { DECISION_SCHEMA_V1, type DecisionRecordV1, verdictOf } from '../src/server/decision-record.js';
import { redecide } from '../src/server/redecide.js';

const arg = process.argv.indexOf('--records');
const N = arg === -1 ? 100_000 : Number(process.argv[arg + 1]);
const SECRET = 'bench-replay-secret-0123456789abcdefghijkl';
const key = [{ kid: 'k1', alg: 'HS256', secret: SECRET }];
const mod = { type: 'module', module: 'hook.js' };
const doc = (guardTools: string[], toolsModes: string[]) => ({
  tenants: {
    acme: { auth: { keys: key }, hooks: { guard: { backend: mod, modes: ['tool'], tools: guardTools } } },
    beta: {
      auth: { keys: key },
      hooks: { tools: { backend: mod, modes: toolsModes, tools: ['get_weather'] } },
    },
  },
});
const compile = (d: unknown) => compileConfig(d, (r) => r);
const before = compile(doc(['get_weather', 'lookup'], ['llm', 'tool']));
const after = compile(doc(['get_weather'], ['tool']));

// A deterministic mix: two tenants, tool calls answered by respond, modify or continue, LLM calls.
let seed = 42;
const rand = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 2 ** 32;
};
const TOOLS = ['get_weather', 'lookup', 'exec', 'read_file'];
function call(i: number): DecisionRecordV1 {
  const beta = rand() < 0.4;
  const llm = beta && rand() < 0.5;
  const tool = TOOLS[Math.floor(rand() * TOOLS.length)];
  const method = llm ? (rand() < 0.5 ? 'hook.before_llm' : 'hook.after_llm') : 'hook.before_tool';
  const params: Record<string, unknown> = llm
    ? { model: 'm', messages: [{ role: 'user', content: `q${i}` }] }
    : { tool, arguments: { i } };
  const r = rand();
  const hookAnswer = llm
    ? { action: 'continue' }
    : r < 0.5
      ? { action: 'respond', result: { for_llm: `ran ${tool}` } }
      : r < 0.6
        ? { action: 'modify', call: { tool, arguments: { i, x: 1 } } }
        : { action: 'continue' };
  const record: DecisionRecordV1 = {
    schema: DECISION_SCHEMA_V1,
    decision_id: `d-${i}`,
    time: new Date(Date.UTC(2026, 10, 26) + i * 800).toISOString(),
    tenant: beta ? 'beta' : 'acme',
    hook: beta ? 'tools' : 'guard',
    dialect: 'picoclaw',
    method,
    tool: llm ? null : tool,
    request_id: null,
    token_tools: null,
    config_revision: before.revision,
    kind: 'passed',
    hook_verdict: verdictOf(hookAnswer),
    verdict: null,
    answered: '',
    violations: [],
    limit: null,
    failure: null,
    latency_ms: { total: 0.4, gateway: 0.1, hook: 0.3 },
    params_digest: null,
    args_digest: null,
    params,
    hook_answer: hookAnswer,
  };
  // What the recording config decided: the log is what a gateway under it would have written.
  const old = redecide(record, before, hostTraitsOf);
  if (!old.ok) throw new Error(old.why);
  record.kind = old.kind;
  record.answer = old.answer;
  record.verdict = verdictOf(old.answer);
  record.answered = record.verdict ?? '';
  record.violations = old.violations;
  return record;
}

const dir = mkdtempSync(join(tmpdir(), 'hookgate-bench-replay-'));
const log = join(dir, 'decisions.ndjson');
const lines: string[] = [];
let expected = 0;
for (let i = 0; i < N; i++) {
  const r = call(i);
  lines.push(JSON.stringify(r));
  // Independent of the policy code: acme/guard's respond and rewrite for `lookup` lose their grant
  // (it is no longer one of the hook's tools); every LLM call to beta/tools is no longer forwarded.
  if (r.tenant === 'acme' && r.tool === 'lookup' && r.hook_verdict !== 'continue') expected++;
  if (r.tenant === 'beta' && r.method !== 'hook.before_tool') expected++;
}
writeFileSync(log, `${lines.join('\n')}\n`);

const cpu0 = process.cpuUsage();
const t0 = performance.now();
const report = await replayLog(log, after);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
rmSync(dir, { recursive: true, force: true });
const ok =
  report.records === N &&
  report.changed.length === expected &&
  report.notRedecided.length === 0 &&
  report.unreadable.length === 0;
process.stdout.write(
  `${JSON.stringify({
    records: N,
    changed: report.changed.length,
    expected,
    by_rule: report.byRule,
    wall_ms: Math.round(ms),
    cpu_ms: Math.round((cpu.user + cpu.system) / 1000),
    records_per_s: Math.round(N / (ms / 1000)),
    ok,
  })}\n`,
);
process.exitCode = ok ? 0 : 1;
