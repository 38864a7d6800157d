import { describe, expect, it } from 'vitest';
import { decideRuleCase, RULE_CASES } from '../policy/rule-cases.js';

// The Node suite runs the same table (test/policy/rule-decision.test.ts): the same rules give the
// same decisions in workerd.
describe('gateway rules in workerd', () => {
  for (const c of RULE_CASES) {
    it(c.name, () => {
      expect(decideRuleCase(c)).toEqual(c.expect);
    });
  }
});
