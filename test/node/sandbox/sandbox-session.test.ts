/**
 * A sandboxed hook gets a session of its own (bwrap --new-session) only while the gateway has a
 * controlling terminal, the one thing a hook in the gateway's session could reach (/dev/tty, and
 * TIOCSTI into it): then the hook has none. Without a terminal it stays in the gateway's session: a session of its own is
 * also a scheduling group of its own under sched_autogroup, which put a sandboxed hook's sequential
 * latency above an unsandboxed one's (docs/performance.md).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  detectSandbox,
  hasControllingTerminal,
  planSandbox,
  type SandboxPolicy,
  wrapInSandbox,
} from '../../../src/node/sandbox/sandbox.js';
import { REPO } from '../../helpers/gateway.js';

const support = detectSandbox();
const bwrapAvailable = support.available || !!process.env.CI; // CI installs bubblewrap: a missing one fails there
const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
const scriptAvailable = script.status === 0;
const why = support.available
  ? scriptAvailable
    ? ''
    : ' (SKIPPED: no script(1) from util-linux to give the gateway a terminal)'
  : ` (SKIPPED: ${support.reason})`;

const policy = (over: Partial<SandboxPolicy> = {}): SandboxPolicy => ({
  bwrap: '/usr/bin/bwrap',
  identity: { kind: 'userns' },
  host: { dirs: ['/usr'], symlinks: [] },
  readOnly: [],
  writable: [],
  hide: [],
  network: false,
  cwd: '/',
  keepHome: false,
  ...over,
});
const spec = { command: '/bin/sh', args: ['-c', 'true'], cwd: '/', env: { PATH: '/usr/bin:/bin' } };

const dir = mkdtempSync(join(tmpdir(), 'hookgate-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('wrapInSandbox: --new-session as the policy says', () => {
  it('asks bwrap for a session of its own unless the policy says the gateway has no terminal', () => {
    expect(wrapInSandbox(spec, policy()).args).toContain('--new-session');
    expect(wrapInSandbox(spec, policy({ newSession: true })).args).toContain('--new-session');
    expect(wrapInSandbox(spec, policy({ newSession: false })).args).not.toContain('--new-session');
  });
});

describe('hasControllingTerminal: tty_nr in /proc/<pid>/stat', () => {
  const stat = (ttyNr: string) => {
    const file = join(dir, `stat-${ttyNr}`);
    // A command name with spaces and a ')' of its own: fields are counted after the last ')'.
    writeFileSync(file, `4242 (node (a) b) S 1 4242 4242 ${ttyNr} 4242 4194304 100 0 0 0 5 1 0 0 20 0 7 0`);
    return file;
  };
  it('none when tty_nr is 0, one otherwise (34816: /dev/pts/0)', () => {
    expect(hasControllingTerminal(stat('0'))).toBe(false);
    expect(hasControllingTerminal(stat('34816'))).toBe(true);
  });
  it('a terminal when the file cannot be read or parsed: the hook keeps a session of its own', () => {
    expect(hasControllingTerminal(join(dir, 'missing'))).toBe(true);
    expect(hasControllingTerminal(stat('x'))).toBe(true);
  });
  const ps = spawnSync('ps', ['-o', 'tty=', '-p', String(process.pid)], { encoding: 'utf8' });
  const psNote = ps.status !== 0 ? ' (skipped: ps(1) from procps is not installed)' : '';
  it.skipIf(ps.status !== 0)(`this process, as ps(1) reports it${psNote}`, () => {
    // ps prints "?" for a process without a controlling terminal.
    expect(hasControllingTerminal()).toBe(ps.stdout.trim() !== '?');
  });
});

/**
 * A gateway-side process on a pseudo-terminal (script(1) makes one its controlling terminal) plans
 * a sandbox as the gateway does and runs a hook that reads its own controlling terminal (tty_nr in
 * /proc/self/stat: 0 is none, and a process without one cannot open /dev/tty nor push input into a
 * terminal); prints what the plan said and what the hook has. `force` overrides the plan's
 * newSession (the control).
 */
function onTerminal(force?: boolean): { newSession: boolean; hookTerminal: boolean } {
  const probe = join(dir, 'probe.mts');
  writeFileSync(
    probe,
    `import { spawnSync } from 'node:child_process';
import { detectSandbox, planSandbox, wrapInSandbox } from ${JSON.stringify(join(REPO, 'src/node/sandbox/sandbox.ts'))};
const support = detectSandbox();
if (!support.available) throw new Error(support.reason);
const plan = planSandbox({ command: ['/bin/sh'], cwd: '/', env: { PATH: '/usr/bin:/bin' }, readPaths: [], writePaths: [], network: false, privatePaths: [], foreignPaths: [] }, support);
const force = process.argv[2];
const policy = force === undefined ? plan : { ...plan, newSession: force === 'true' };
const out = wrapInSandbox({ command: '/bin/cat', args: ['/proc/self/stat'], cwd: '/', env: { PATH: '/usr/bin:/bin' } }, policy);
const r = spawnSync(out.command, out.args, { env: out.env, encoding: 'utf8', timeout: 10000 });
const ttyNr = Number(r.stdout.slice(r.stdout.lastIndexOf(')') + 2).split(' ')[4]);
if (!Number.isInteger(ttyNr)) throw new Error('no stat from the hook: ' + r.stdout + r.stderr);
console.log('RESULT ' + JSON.stringify({ newSession: plan.newSession, hookTerminal: ttyNr !== 0 }));
`,
  );
  const command = [
    process.execPath,
    '--import',
    'tsx',
    probe,
    ...(force === undefined ? [] : [String(force)]),
  ]
    .map((a) => `'${a}'`)
    .join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = r.stdout.split(/\r?\n/).find((l) => l.startsWith('RESULT '));
  if (!line) throw new Error(`no result from the probe: ${r.stdout}${r.stderr}`);
  return JSON.parse(line.slice('RESULT '.length)) as { newSession: boolean; hookTerminal: boolean };
}

describe.skipIf(!bwrapAvailable || !scriptAvailable)(`a gateway on a terminal${why}`, () => {
  it('plans a session of its own for the hook, which has no terminal', () => {
    if (!support.available) throw new Error(support.reason); // under CI, where it must work
    expect(onTerminal()).toEqual({ newSession: true, hookTerminal: false });
  });

  it('the control: the same hook in the gateway’s session has the gateway’s terminal', () => {
    if (!support.available) throw new Error(support.reason);
    expect(onTerminal(false)).toEqual({ newSession: true, hookTerminal: true });
  });

  it('without a terminal the plan keeps the hook in the gateway’s session (nothing to reach)', () => {
    if (!support.available) throw new Error(support.reason);
    const plan = planSandbox(
      {
        command: ['/bin/sh'],
        cwd: '/',
        env: { PATH: '/usr/bin:/bin' },
        readPaths: [],
        writePaths: [],
        network: false,
        privatePaths: [],
        foreignPaths: [],
      },
      support,
    );
    expect(plan.newSession).toBe(hasControllingTerminal());
  });
});
