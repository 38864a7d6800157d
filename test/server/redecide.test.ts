import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { hostTraitsOf } from '../../src/hosts/traits.js';
import { DECISION_SCHEMA_V1, type DecisionRecordV1 } from '../../src/server/decision-record.js';
import { redecide as redecideUnder } from '../../src/server/redecide.js';

const redecide = (r: DecisionRecordV1, c: ReturnType<typeof config>) => redecideUnder(r, c, hostTraitsOf);

const SECRET = 'redecide-test-secret-0123456789abcdefghijk';
const config = (modes: string[]) =>
  compileConfig(
    {
      tenants: {
        acme: {
          auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: SECRET }] },
          hooks: { guard: { backend: { type: 'module', module: 'x.js' }, modes, tools: ['get_weather'] } },
        },
      },
    },
    (r) => r,
  );

const record = (over: Partial<DecisionRecordV1> = {}): DecisionRecordV1 => ({
  schema: DECISION_SCHEMA_V1,
  decision_id: 'd-1',
  time: '2026-11-27T18:00:00.000Z',
  tenant: 'acme',
  hook: 'guard',
  dialect: 'picoclaw',
  method: 'hook.before_tool',
  tool: 'get_weather',
  request_id: null,
  token_tools: null,
  config_revision: 'r',
  kind: 'passed',
  hook_verdict: 'respond',
  verdict: 'respond',
  answered: 'respond',
  violations: [],
  limit: null,
  failure: null,
  latency_ms: { total: 1, gateway: 0.5, hook: 0.5 },
  params_digest: null,
  args_digest: null,
  params: { tool: 'get_weather', arguments: { city: 'Oslo' } },
  hook_answer: { action: 'respond', result: { for_llm: 'sunny' } },
  answer: { action: 'respond', result: { for_llm: 'sunny' } },
  ...over,
});

describe('redecide', () => {
  it('gives the recorded decision back under the config that made it', () => {
    expect(redecide(record(), config(['tool']))).toMatchObject({ ok: true, kind: 'passed', changed: false });
  });

  it("narrows the hook's tools by the recorded token_tools, as the gateway did", () => {
    const r = redecide(record({ token_tools: ['other'] }), config(['tool']));
    expect(r).toMatchObject({
      ok: true,
      kind: 'changed',
      answer: { action: 'continue' },
      violations: [{ rule: 'respond_tool_not_granted' }],
      changed: true,
    });
  });

  it('answers by the mode gate without the hook, and names a removed hook', () => {
    expect(redecide(record(), config(['observe']))).toMatchObject({
      ok: true,
      kind: 'mode_not_granted',
      answer: { action: 'continue' },
      changed: true,
    });
    expect(redecide(record({ hook: 'gone' }), config(['tool']))).toMatchObject({
      ok: true,
      violations: [{ rule: 'hook_removed' }],
      changed: true,
    });
  });

  it('says why it cannot re-decide a record', () => {
    const cannot = (over: Partial<DecisionRecordV1>) => {
      const r = redecide(record(over), config(['tool']));
      return r.ok ? 'decided' : r.why;
    };
    expect(cannot({ dialect: 'smoke-signals' })).toMatch(/dialect smoke-signals is not one/);
    expect(cannot({ kind: 'rate_limited' })).toMatch(/rate_limited call has no hook answer/);
    expect(cannot({ params: undefined, hook_answer: undefined, answer: undefined })).toMatch(/no params/);
  });

  it("decides with the record's host traits: its own approval, its merged rewrites", () => {
    // Not granted the approve mode: PicoClaw gets an explicit denial, Claude Code no verdict at all.
    const approval = record({ method: 'hook.approve_tool', kind: 'mode_not_granted', answer: undefined });
    expect(redecide(approval, config(['tool']))).toMatchObject({ answer: { approved: false } });
    expect(redecide({ ...approval, dialect: 'claude-code' }, config(['tool']))).toMatchObject({
      answer: { action: 'continue' },
    });
    // A rewrite that drops an argument: applied whole on PicoClaw, refused where Hermes merges it.
    const withGrant = compileConfig(
      {
        tenants: {
          acme: {
            auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: SECRET }] },
            hooks: {
              guard: {
                backend: { type: 'module', module: 'x.js' },
                modes: ['tool'],
                tools: ['get_weather'],
                grants: { rewrite_tools: ['get_weather'] },
              },
            },
          },
        },
      },
      (r) => r,
    );
    const dropped = record({
      params: { tool: 'get_weather', arguments: { city: 'Oslo', units: 'C' } },
      hook_answer: { action: 'modify', call: { tool: 'get_weather', arguments: { city: 'Oslo' } } },
      answer: undefined,
      verdict: 'modify',
    });
    expect(redecideUnder(dropped, withGrant, hostTraitsOf)).toMatchObject({ ok: true, kind: 'passed' });
    expect(redecideUnder({ ...dropped, dialect: 'hermes' }, withGrant, hostTraitsOf)).toMatchObject({
      ok: true,
      kind: 'changed',
      violations: [{ rule: 'rewrite_removes_argument' }],
    });
  });
});
