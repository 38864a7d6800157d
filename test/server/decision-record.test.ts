import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { renderDecisionSchema } from '../../scripts/gen-decision-schema.js';
import type { Decision } from '../../src/server/decision.js';
import { DECISION_SCHEMA_V1, toDecisionRecord } from '../../src/server/decision-record.js';
import { REPO } from '../helpers/gateway.js';

const committed = readFileSync(join(REPO, 'schemas/decision-record.v1.json'), 'utf8');
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile(JSON.parse(committed));

function decision(over: Partial<Decision> = {}): Decision {
  return {
    id: 'd-1',
    time: Date.UTC(2026, 0, 2, 3, 4, 5),
    tenant: 'acme',
    hook: 'guard',
    dialect: 'picoclaw',
    method: 'hook.before_tool',
    tool: 'exec',
    configRevision: '0123456789abcdef',
    kind: 'passed',
    params: { tool: 'exec', arguments: { b: 2, a: [1, 'x'] } },
    hookAnswer: { action: 'continue' },
    answer: { action: 'continue' },
    answered: 'continue',
    violations: [],
    startedAt: 0,
    hookMs: 1.25,
    totalMs: 2,
    ...over,
  };
}

describe('the decision record schema', () => {
  it('is committed as generated from the zod schema (npm run schemas)', () => {
    expect(committed).toBe(renderDecisionSchema());
  });

  it('takes every kind of record the gateway builds, and refuses records it does not describe', async () => {
    const records = [
      await toDecisionRecord(decision(), false),
      await toDecisionRecord(decision(), true),
      await toDecisionRecord(
        decision({
          kind: 'rate_limited',
          hookAnswer: undefined,
          answer: undefined,
          limit: { name: 'hook_rate', retryAfterMs: 900 },
        }),
        false,
      ),
      await toDecisionRecord(
        decision({
          kind: 'failed',
          hookAnswer: undefined,
          answer: { action: 'deny_tool', reason: 'x' },
          failure: { code: 'BACKEND_TIMEOUT', why: 'no answer', onFailure: 'closed' },
        }),
        false,
      ),
      await toDecisionRecord(
        decision({
          kind: 'changed',
          violations: [{ rule: 'rewrite_arguments_not_granted', tool: 'exec', detail: 'd' }],
        }),
        false,
      ),
      await toDecisionRecord(
        decision({ method: 'hook.before_llm', tool: undefined, params: { messages: [] } }),
        false,
      ),
    ];
    for (const r of records) expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
    expect(records[0].schema).toBe(DECISION_SCHEMA_V1);
    expect(records[0].latency_ms).toEqual({ total: 2, gateway: 0.75, hook: 1.25 });
    expect(records[5].args_digest).toBeNull();
    expect(records[5].params_digest).toMatch(/^sha256:/);
    const bad = [
      { ...records[0], kind: 'maybe' },
      { ...records[0], schema: 'hookgate.decision/v2' },
      { ...records[0], extra: 1 },
      { ...records[0], args_digest: 'md5:abc' },
      (({ decision_id: _, ...rest }) => rest)(records[0]),
    ];
    for (const r of bad) expect(validate(r)).toBe(false);
  });
});
