import { describe, expect, it } from 'vitest';
import { CASES, holds, runCase } from '../policy/conditions/cases.js';

// The Node suite runs the same table (test/policy/conditions/conditions.test.ts): a condition
// decides the same on both runtimes, the ReDoS pattern included.
describe('conditions in workerd', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const outcome = runCase(c);
      expect(holds(c.expect, outcome), `${c.source}\n→ ${JSON.stringify(outcome)}`).toBe(true);
    });
  }
});
