import { describe, expect, it } from 'vitest';
import { decideCase, GRANT_CASES } from './grant-cases.js';

// The workerd suite runs the same table (test/worker/grants.test.ts): a conditional grant decides
// the same on both runtimes.
describe('conditional grants: the shared case table on Node', () => {
  it.each(GRANT_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(decideCase(c)).toEqual(c.expect);
  });
});
