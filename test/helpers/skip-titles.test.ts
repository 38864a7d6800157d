import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './gateway.js';
import { conditionalSkips, namesItsReason, testFiles } from './skip-titles.js';

/**
 * The skip reporter (skip-reporter.ts) can list why a test skipped only when the test says so: in
 * its title, or its describe's, as `(skipped: …)`, which the suites build from the helpers'
 * notes (`redisNote`, `chromiumNote`, `sandboxNote`, a file's own `why`/`note`). A conditional skip
 * whose title carries none is listed as "no reason given" only on a machine where it skips, so it
 * is checked here in the source, for every machine: each `skipIf`/`runIf`/`.skip` title must hold
 * `skipped:` or interpolate a note.
 */

describe('conditional skips name their reason', () => {
  it('finds the title of each form, over nested parentheses, strings and templates', () => {
    // The source as written in a test file (`\${` keeps each placeholder as text here).
    const source = [
      `describe.skipIf(!a || (b && c(')')))(\`suite\${redisNote}\`, () => {`,
      `  it.skipIf(!BASH)(\n    'runs where sh is bash',`,
      `  it.runIf(x)(\`probe \${x ? '' : ' (skipped: no x (here))'}\`, () => {});`,
      `  it.skip('later', () => {});`,
      '  const skip = !ok; // not a call: skipIf( in a comment has no title after it',
    ].join('\n');
    expect(conditionalSkips(source).map((s) => [s.title, namesItsReason(s.title)])).toEqual([
      [`\`suite\${redisNote}\``, true],
      ["'runs where sh is bash'", false],
      [`\`probe \${x ? '' : ' (skipped: no x (here))'}\``, true],
      ["'later'", false],
    ]);
  });

  it('in every test file of the three suites', () => {
    // Not this file: its examples are the forms themselves, as data.
    const files = testFiles(join(REPO, 'test')).filter((f) => !f.endsWith('skip-titles.test.ts'));
    const skips = files.flatMap((f) => conditionalSkips(readFileSync(f, 'utf8'), relative(REPO, f)));
    // The scan sees the suites' skips (redis, chromium, sandbox, real hosts), not none by mistake.
    expect(skips.length).toBeGreaterThan(40);
    expect(skips.filter((s) => !namesItsReason(s.title)).map((s) => `${s.where} ${s.title}`)).toEqual([]);
  });
});
