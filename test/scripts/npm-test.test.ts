import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/gateway.js';

/**
 * `npm test` as the repository defines it (package.json's test script, scripts/test.mjs), run by the
 * real npm and the real vitest in a project of its own whose two suites are one test each, passing
 * or failing as the test says. A red fast suite must not keep the workerd suite from running (it
 * did when the script chained the two with `&&`), and either suite failing must fail `npm test`.
 */
const repoPackage = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
let project: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'hookgate-npm-test-'));
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'npm-test-probe', private: true, type: 'module', scripts: repoPackage.scripts }),
  );
  mkdirSync(join(project, 'scripts'));
  copyFileSync(join(REPO, 'scripts/test.mjs'), join(project, 'scripts/test.mjs'));
  symlinkSync(join(REPO, 'node_modules'), join(project, 'node_modules'));
  // The same config names as the repository's; each suite is one file whose test passes unless
  // its environment variable says fail.
  const suites = [
    ['vitest.config.ts', 'fast-stand-in.test.ts', 'PROBE_FAST'],
    ['vitest.workers.config.ts', 'workerd-stand-in.test.ts', 'PROBE_WORKERD'],
  ];
  for (const [config, file, variable] of suites) {
    writeFileSync(join(project, config), `export default { test: { include: ['${file}'] } };\n`);
    writeFileSync(
      join(project, file),
      `import { expect, it } from 'vitest';\nit('${file}', () => expect(process.env.${variable}).not.toBe('fail'));\n`,
    );
  }
});
afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** `npm test` in the project: its exit code and output. */
function npmTest(env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  // Not this run's own vitest settings: the child is a vitest run of its own.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith('VITEST') && k !== 'NODE_OPTIONS' && k !== 'HOOKGATE_TEST_RESULTS',
    ),
  );
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['test'],
      { cwd: project, env: { ...inherited, NO_COLOR: '1', ...env }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, out: stdout, err: stderr });
      },
    );
  });
}

/** Whether that stand-in's file was run (vitest names each file it ran, passed or failed). */
const ran = (out: string, suite: 'fast' | 'workerd') => out.includes(`${suite}-stand-in.test.ts`);

describe('npm test', { timeout: 120_000 }, () => {
  it('runs the workerd suite after a failing fast suite, and fails naming the fast suite', async () => {
    const r = await npmTest({ PROBE_FAST: 'fail' });
    expect(ran(r.out, 'fast'), r.out).toBe(true);
    expect(ran(r.out, 'workerd'), r.out).toBe(true);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('1 of 2 suites failed');
    expect(r.err).toContain('fast suite (vitest.config.ts): exit 1');
    expect(r.err).not.toContain('workerd suite (vitest.workers.config.ts): exit');
  });

  it('fails when only the workerd suite fails, naming it', async () => {
    const r = await npmTest({ PROBE_WORKERD: 'fail' });
    expect(ran(r.out, 'fast') && ran(r.out, 'workerd'), r.out).toBe(true);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('workerd suite (vitest.workers.config.ts): exit 1');
    expect(r.err).not.toContain('fast suite (vitest.config.ts): exit');
  });

  it('passes when both pass', async () => {
    const r = await npmTest({});
    expect(ran(r.out, 'fast') && ran(r.out, 'workerd'), r.out).toBe(true);
    expect(r.code, r.err).toBe(0);
    expect(r.err).not.toContain('suites failed');
  });
});
