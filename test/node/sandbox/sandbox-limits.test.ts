import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hookUid } from '../../../src/node/sandbox/hook-limits.js';
import { SANDBOX_LIMIT_DEFAULTS } from '../../../src/config/schema.js';
import {
  detectLimits,
  limitSpawn,
  liveCgroups,
  probeLimits,
  RLIMIT_RESERVATION_HEADROOM,
} from '../../../src/node/sandbox/sandbox-limits.js';
import { detectSandbox, wrapInSandbox } from '../../../src/node/sandbox/sandbox.js';
import { REPO, startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { sandboxNote, SKIP_SANDBOX } from '../../helpers/sandbox.js';

const BOMB = join(REPO, 'test', 'helpers', 'bomb-hook.mjs');
const support = detectLimits();
const cgroups = support.kind === 'cgroup1' || support.kind === 'cgroup2';
const cgroupV2 = support.kind === 'cgroup2';
// Root on a machine with cgroups (CI is one) makes them; elsewhere these tests say why they skip.
const SKIP_CGROUP = !cgroups && !process.env.CI;
const cgroupNote = SKIP_CGROUP ? ` (skipped: no cgroup can be made here: ${support.reason})` : '';

/** The directories this process's hook cgroups live in. */
function parents(): string[] {
  if (support.kind === 'cgroup2') return [support.parent];
  if (support.kind === 'cgroup1') return [...new Set(Object.values(support.parents))];
  return [];
}
const children = () =>
  parents()
    .filter(existsSync)
    .flatMap((p) =>
      readdirSync(p, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => join(p, e.name)),
    );

function run(spec: { command: string; args: readonly string[]; env: Record<string, string | undefined> }) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(spec.env)) if (v !== undefined) env[k] = v;
    const child = spawn(spec.command, [...spec.args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b;
    });
    child.stderr.on('data', (b: Buffer) => {
      out += b;
    });
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('probeLimits: which mechanism enforces hook limits here', () => {
  it(`finds a cgroup hierarchy it can write (root on cgroup v1 or a delegated v2)${cgroupNote}`, () => {
    if (SKIP_CGROUP) return;
    expect(['cgroup1', 'cgroup2']).toContain(support.kind);
    // Made with the first hook cgroup and removed with the last: what holds it must be there.
    for (const p of parents()) expect(existsSync(dirname(p))).toBe(true);
  });

  it('falls back to prlimit, saying why, where no cgroup filesystem is mounted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'limits-probe-'));
    writeFileSync(join(dir, 'mountinfo'), '22 1 0:20 / /proc rw - proc proc rw\n');
    writeFileSync(join(dir, 'cgroup'), '0::/\n');
    const found = probeLimits({ mountinfo: join(dir, 'mountinfo'), cgroup: join(dir, 'cgroup') });
    expect(found).toMatchObject({ kind: 'rlimit', reason: 'no cgroup filesystem is mounted' });
  });

  it('reports none, with every reason, where there is neither a cgroup nor prlimit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'limits-probe-'));
    writeFileSync(join(dir, 'mountinfo'), '');
    writeFileSync(join(dir, 'cgroup'), '');
    const found = probeLimits(
      { mountinfo: join(dir, 'mountinfo'), cgroup: join(dir, 'cgroup') },
      '/nonexistent',
    );
    // prlimit sits in /usr/bin on a Debian machine; the probe also looks there, so only a machine
    // without util-linux gets "none". Either way the reason names the missing cgroup.
    expect(found.kind === 'none' ? found.reason : (found as { reason: string }).reason).toMatch(
      /no cgroup filesystem is mounted/,
    );
  });

  it('reads a cgroup v1 hierarchy that does not hold this process as not usable, with the path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'limits-probe-'));
    writeFileSync(
      join(dir, 'mountinfo'),
      `30 1 0:25 /other ${dir}/pids rw - cgroup cgroup rw,pids\n31 1 0:26 /other ${dir}/mem rw - cgroup cgroup rw,memory\n`,
    );
    writeFileSync(join(dir, 'cgroup'), '8:pids:/mine\n4:memory:/mine\n');
    const found = probeLimits({ mountinfo: join(dir, 'mountinfo'), cgroup: join(dir, 'cgroup') });
    expect(found.kind).toBe('rlimit');
    expect((found as { reason: string }).reason).toMatch(/pids cgroup \/mine is outside the mount/);
  });
});

describe('limitSpawn with rlimits (prlimit)', () => {
  it('runs the command under prlimit with the per-uid process ceiling and the data limit (memory_mb plus room for reservations)', () => {
    const out = limitSpawn(
      { command: '/usr/bin/bwrap', args: ['--', 'hook'], env: {} },
      { pids: 32, memoryBytes: 64 * 2 ** 20 },
      { kind: 'rlimit', prlimit: '/usr/bin/prlimit', reason: 'test' },
      'acme.h',
      200,
    );
    expect(out.command).toBe('/usr/bin/prlimit');
    expect(out.args).toEqual([
      '--nproc=200',
      `--data=${64 * 2 ** 20 + RLIMIT_RESERVATION_HEADROOM}`,
      '--',
      '/usr/bin/bwrap',
      '--',
      'hook',
    ]);
  });
});

const sandbox = detectSandbox();
const PRLIMIT = ['/usr/bin/prlimit', '/bin/prlimit'].find(existsSync);
const setpriv = sandbox.available && sandbox.identity.kind === 'setpriv';
const SKIP_UIDS = (!setpriv || !PRLIMIT) && !process.env.CI;
const uidNote = SKIP_UIDS
  ? ` (skipped: needs a root gateway's setpriv sandbox and prlimit: ${sandbox.available ? sandbox.identity.kind : sandbox.reason}, prlimit ${PRLIMIT ?? 'missing'})`
  : '';

/**
 * A hook in the real bwrap sandbox under rlimits that forks up to 40 sleeping children, prints how
 * many it got and holds them until its stdin closes (perl: a failed fork is an error it can count).
 */
function forker(uid: number) {
  if (!sandbox.available || !PRLIMIT) throw new Error('needs bwrap and prlimit'); // under CI
  const perl =
    '$|=1; my $n=0; for (1..40) { my $p=fork(); last unless defined $p; if (!$p) { sleep 60; exit 0 } $n++ } print "$n\n"; <STDIN>;';
  const bwrapped = wrapInSandbox(
    { command: '/usr/bin/perl', args: ['-e', perl], cwd: '/', env: { PATH: '/usr/bin:/bin' } },
    {
      bwrap: sandbox.bwrap,
      identity: sandbox.identity,
      host: sandbox.host,
      readOnly: [],
      writable: [],
      hide: [],
      network: true,
      cwd: '/',
      keepHome: false,
      uid,
    },
  );
  const spec = limitSpawn(
    bwrapped,
    { pids: 16, memoryBytes: 256 * 2 ** 20 },
    { kind: 'rlimit', prlimit: PRLIMIT, reason: 'test' },
    '',
    16,
  );
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.env)) if (v !== undefined) env[k] = v;
  const child = spawn(spec.command, [...spec.args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const forked = new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b;
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    child.on('exit', (code) => reject(new Error(`exited ${code} before it said how many it forked`)));
  });
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = () => {
    child.stdin.end();
    return done;
  };
  return { forked, stop };
}

const SKIP_USERNS = (!sandbox.available || !PRLIMIT) && !process.env.CI;
const usernsNote = SKIP_USERNS
  ? ` (skipped: needs bwrap and prlimit: ${sandbox.available ? `prlimit ${PRLIMIT ?? 'missing'}` : sandbox.reason})`
  : '';

describe.skipIf(SKIP_USERNS)(
  `rlimits in a user namespace (an unprivileged gateway without cgroups)${usernsNote}`,
  () => {
    it('bounds the memory of each process of the hook by RLIMIT_DATA', () => {
      if (!sandbox.available || !PRLIMIT) throw new Error('needs bwrap and prlimit'); // under CI
      // 2000 MiB in one string against 128 MiB (plus the reservation room); 32 MiB (perl holds it
      // twice while copying) fits.
      const perl = (mb: number) => `my $x = "x" x (${mb} * 1024 * 1024); print "held ${mb}\n";`;
      const run = (mb: number) => {
        const spec = limitSpawn(
          wrapInSandbox(
            { command: '/usr/bin/perl', args: ['-e', perl(mb)], cwd: '/', env: { PATH: '/usr/bin:/bin' } },
            {
              bwrap: sandbox.bwrap,
              identity: { kind: 'userns' },
              host: sandbox.host,
              readOnly: [],
              writable: [],
              hide: [],
              network: true,
              cwd: '/',
              keepHome: false,
            },
          ),
          { pids: 16, memoryBytes: 128 * 2 ** 20 },
          { kind: 'rlimit', prlimit: PRLIMIT, reason: 'test' },
          '',
          1000,
        );
        return spawnSync(spec.command, [...spec.args], {
          env: spec.env as NodeJS.ProcessEnv,
          encoding: 'utf8',
        });
      };
      expect(run(32).stdout).toBe('held 32\n');
      const over = run(2000);
      expect(over.stdout).toBe('');
      expect(over.status).not.toBe(0);
      expect(over.stderr).toMatch(/Out of memory/);
    });

    it('lets a Node hook start under the default memory_mb (V8 reserves more address space than it uses)', () => {
      if (!sandbox.available || !PRLIMIT) throw new Error('needs bwrap and prlimit'); // under CI
      const spec = limitSpawn(
        { command: process.execPath, args: ['-e', 'console.log("started")'], cwd: '/', env: {} },
        { pids: SANDBOX_LIMIT_DEFAULTS.pids, memoryBytes: SANDBOX_LIMIT_DEFAULTS.memory_mb * 2 ** 20 },
        { kind: 'rlimit', prlimit: PRLIMIT, reason: 'test' },
        '',
        1000,
      );
      const r = spawnSync(spec.command, [...spec.args], { encoding: 'utf8' });
      expect({ status: r.status, stdout: r.stdout, stderr: r.stderr.split('\n')[0] }).toEqual({
        status: 0,
        stdout: 'started\n',
        stderr: '',
      });
    });
  },
);

describe.skipIf(SKIP_UIDS)(`rlimits with a uid per hook (a root gateway without cgroups)${uidNote}`, () => {
  it("stops a fork bomb at its own RLIMIT_NPROC while another hook's uid still forks", async () => {
    const bomb = forker(hookUid('attacker', 'h'));
    try {
      expect(await bomb.forked).toBeLessThan(16);
      // Another hook's uid: its own count, untouched by the bomb.
      const other = forker(hookUid('victim', 'h'));
      expect(await other.forked).toBe(15);
      await other.stop();
      // The same uid (what a shared 65534 would be): refused, the bomb holds them all.
      const same = forker(hookUid('attacker', 'h'));
      await expect(same.forked.catch(() => 0)).resolves.toBeLessThan(2);
      await same.stop();
    } finally {
      await bomb.stop();
    }
  }, 30_000);
});

describe.skipIf(SKIP_CGROUP)(`limitSpawn with a cgroup per spawn${cgroupNote}`, () => {
  it('puts the process in its own cgroup before it runs, with the limits, and removes it after exit', async () => {
    const spec = limitSpawn(
      {
        command: '/bin/cat',
        args: ['/proc/self/cgroup', '/proc/self/environ'],
        env: { PATH: '/usr/bin:/bin' },
      },
      { pids: 16, memoryBytes: 48 * 2 ** 20 },
      support,
      'acme.h',
    );
    const made = liveCgroups().filter((d) => d.includes('acme.h.'));
    expect(made.length).toBeGreaterThan(0);
    for (const dir of made) {
      const limit = existsSync(join(dir, 'pids.max'))
        ? readFileSync(join(dir, 'pids.max'), 'utf8').trim()
        : readFileSync(join(dir, 'memory.limit_in_bytes'), 'utf8').trim();
      expect(['16', String(48 * 2 ** 20)]).toContain(limit);
    }
    const { code, out } = await run(spec);
    expect(code).toBe(0);
    const name = made[0]!.split('/').pop()!;
    const lines = out.split('\n').filter((l) => (cgroupV2 ? /^0::/ : /^\d+:(pids|memory):/).test(l));
    expect(lines.length).toBe(cgroupV2 ? 1 : 2);
    for (const line of lines) expect(line.endsWith(`/${name}`)).toBe(true);
    // sh sets PWD on its own; a hook whose environment had none gets none.
    expect(out).toContain('PATH=/usr/bin:/bin');
    expect(out).not.toMatch(/(^|\0)PWD=/m);
    await spec.release?.();
    expect(made.filter(existsSync)).toEqual([]);
  });

  const BASH = ['/bin/bash', '/usr/bin/bash'].find(existsSync);
  it.skipIf(!BASH)(
    `runs its root-side step so that the hook's environment cannot steer it, where sh is bash${BASH ? '' : ' (skipped: no bash in /bin or /usr/bin)'}`,
    async () => {
      const spec = limitSpawn(
        {
          command: '/bin/cat',
          args: ['/proc/self/cgroup', '/proc/self/environ'],
          env: {
            PATH: '/usr/bin:/bin',
            // What bash would import as a function, and xtrace with a PS4 that runs a command.
            'BASH_FUNC_echo%%': '() { /bin/echo 999999999; }',
            SHELLOPTS: 'xtrace',
            PS4: '$(/bin/echo ps4-ran >&2)',
          },
        },
        { pids: 16, memoryBytes: 48 * 2 ** 20 },
        { ...(support as Extract<typeof support, { sh: string }>), sh: BASH! },
        'acme.env',
      );
      const made = liveCgroups().filter((d) => d.includes('acme.env.'));
      const { code, out } = await run(spec);
      await spec.release?.();
      expect(out).not.toContain('ps4-ran');
      expect(code).toBe(0);
      const name = made[0]!.split('/').pop()!;
      const lines = out.split('\n').filter((l) => (cgroupV2 ? /^0::/ : /^\d+:(pids|memory):/).test(l));
      for (const line of lines) expect(line.endsWith(`/${name}`)).toBe(true);
      // The hook itself still gets its environment as configured.
      expect(out).toContain('BASH_FUNC_echo%%=');
    },
  );

  it('refuses to run the command at all when the process cannot enter its cgroup', async () => {
    const spec = limitSpawn(
      { command: '/bin/echo', args: ['hook ran'], env: {} },
      { pids: 16, memoryBytes: 48 * 2 ** 20 },
      support,
      'acme.gone',
    );
    const made = liveCgroups().filter((d) => d.includes('acme.gone.'));
    await spec.release?.();
    expect(made.filter(existsSync)).toEqual([]);
    const { code, out } = await run(spec);
    expect(code).not.toBe(0);
    expect(out).not.toContain('hook ran');
  });
});

const skipGateway = SKIP_SANDBOX || SKIP_CGROUP;
const gatewayNote = sandboxNote || cgroupNote;

describe.skipIf(skipGateway)(`one tenant's bombs stop at its own limits${gatewayNote}`, () => {
  let gw: TestGateway;
  const bomb = (limits: object) => ({
    backend: { type: 'stdio', command: [process.execPath, BOMB], sandbox: { limits } },
    tools: ['ok', 'fork', 'alloc', 'fill', 'spawn'],
    timeout_ms: 20_000,
  });
  const call = async (tenant: string, tool: string, args: object = {}) =>
    (await gw.call('h', 'hook.before_tool', { tool, arguments: args }, { tenant })).result;
  const text = async (tenant: string, tool: string, args: object = {}) =>
    (await call(tenant, tool, args)).result?.for_llm as string | undefined;

  afterAll(async () => {
    await gw?.close();
  });

  it('starts both tenants with the limits their config gives', async () => {
    gw = await startTestGateway({
      server: { sandbox: 'required' },
      tenants: {
        attacker: tenantDoc({ h: bomb({ pids: 32, memory_mb: 96 }) }),
        victim: tenantDoc({ h: bomb({}) }),
      },
    });
    expect(await text('victim', 'ok')).toMatch(/^ok /);
    expect(await text('attacker', 'ok')).toMatch(/^ok /);
    expect(gw.logs.lines.some((l) => l.msg === 'stdio hook limits: a cgroup per hook')).toBe(true);
  }, 30_000);

  it('stops a fork bomb at its own pids limit while the other tenant still answers and forks', async () => {
    const forked = await text('attacker', 'fork', { n: 300 });
    const k = Number(forked?.split(' ')[1]);
    expect(k).toBeLessThan(32);
    // The attacker is at its limit now; the victim's hook still starts processes of its own.
    expect(await text('attacker', 'spawn')).toMatch(/^spawn failed/);
    expect(await text('victim', 'spawn')).toBe('spawned');
    expect(await text('victim', 'ok')).toMatch(/^ok /);
  }, 30_000);

  it('kills a memory bomb inside its cgroup; the hook restarts and the other tenant goes on', async () => {
    const before = (await text('attacker', 'ok'))!;
    // 400 MiB against a 96 MiB limit: the OOM killer ends the hook before it can answer.
    const answer = await call('attacker', 'alloc', { mb: 400 });
    expect(answer).toEqual({ action: 'continue' });
    expect(await text('victim', 'ok')).toMatch(/^ok /);
    await expect
      .poll(async () => (await text('attacker', 'ok').catch(() => undefined)) ?? '', {
        timeout: 20_000,
        interval: 200,
      })
      .toMatch(/^ok /);
    expect(gw.logs.lines.some((l) => l.msg === 'hook process exited' && l.tenant === 'attacker')).toBe(true);
    // The operator is told why: the spawn that ended had forks refused and a process OOM-killed.
    const reached = gw.logs.lines.find((l) => l.msg === 'hook reached its sandbox limits');
    expect(reached).toMatchObject({ tenant: 'attacker', hook: 'h', limits: { pids: 32, memory_mb: 96 } });
    expect(reached!.oom_kills).toBeGreaterThanOrEqual(1);
    expect(reached!.forks_refused).toBeGreaterThanOrEqual(1);
    expect(
      gw.logs.lines.some((l) => l.msg === 'hook reached its sandbox limits' && l.tenant === 'victim'),
    ).toBe(false);
    expect(before).toMatch(/^ok /);
  }, 60_000);

  it('bounds the private /tmp by the same memory limit', async () => {
    const answer = await call('attacker', 'fill', { mb: 400 });
    expect(answer).toEqual({ action: 'continue' });
    expect(await text('victim', 'ok')).toMatch(/^ok /);
    await expect
      .poll(async () => (await text('attacker', 'ok').catch(() => undefined)) ?? '', {
        timeout: 20_000,
        interval: 200,
      })
      .toMatch(/^ok /);
  }, 60_000);

  it('leaves one cgroup per running hook after restarts, and none after close', async () => {
    // On cgroup v1 a hook has one cgroup in each hierarchy, under the same name.
    const names = () => new Set(children().map((d) => d.split('/').pop()!));
    await expect
      .poll(() => [...names()].filter((n) => n.startsWith('attacker.h.')).length, { timeout: 10_000 })
      .toBe(1);
    // Closing waits for the hooks' cgroups to go: nothing of this process is left in the hierarchy.
    await gw.close();
    expect(liveCgroups()).toEqual([]);
    expect(parents().filter(existsSync)).toEqual([]);
  }, 30_000);
});
