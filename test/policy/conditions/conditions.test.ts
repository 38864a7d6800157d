import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VIEW_TYPES } from '../../../src/policy/conditions/index.js';
import { CASES, holds, runCase } from './cases.js';

describe('conditions on Node (the same table runs in workerd: test/worker/conditions.test.ts)', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const outcome = runCase(c);
      expect(holds(c.expect, outcome), `${c.source}\n→ ${JSON.stringify(outcome)}`).toBe(true);
    });
  }
});

describe('docs/policy.md', () => {
  it('documents every variable a condition sees, with its type, and no other', () => {
    const doc = readFileSync(new URL('../../../docs/policy.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## What a condition sees'));
    const rows = [...section.matchAll(/^\| `(\w+)` \| `([^`]+)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(Object.fromEntries(rows)).toEqual(VIEW_TYPES);
  });
});
