import { describe, expect, it } from 'vitest';
import { CASES, holds, runCase } from './cases.js';

describe('conditions on Node (the same table runs in workerd: test/worker/conditions.test.ts)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const outcome = runCase(c);
      expect(holds(c.expect, outcome), `${c.source}\n→ ${JSON.stringify(outcome)}`).toBe(true);
    });
  }
});
