import { describe, expect, it } from 'vitest';
import { decideRuleCase, RULE_CASES } from './rule-cases.js';

// The workerd suite runs the same table (test/worker/rules.test.ts).
describe('gateway rules on a tool call (decideByRules)', () => {
  for (const c of RULE_CASES) {
    it(c.name, () => {
      expect(decideRuleCase(c)).toEqual(c.expect);
    });
  }
});
