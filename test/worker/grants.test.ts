import { describe, expect, it } from 'vitest';
import { decideCase, GRANT_CASES } from '../policy/grant-cases.js';

// The Node suite runs the same table (test/policy/grant-cases.test.ts): the same config with
// conditional grants gives the same decisions in workerd.
describe('conditional grants in workerd', () => {
  for (const c of GRANT_CASES) {
    it(c.name, () => {
      expect(decideCase(c)).toEqual(c.expect);
    });
  }
});
