import { spawn } from 'node:child_process';
import { chmod, copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StdioBackend, type StdioBackendOptions } from '../../src/backends/stdio.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { SKIP_SANDBOX, sandboxNote } from '../helpers/sandbox.js';

const SCRIPT = join(import.meta.dirname, '..', 'helpers', 'misbehaving-hook.mjs');
const TOOLS = [
  'repeated',
  'proto',
  'ok',
  'pid',
  'nojsonrpc',
  'hang',
  'crash',
  'garbage',
  'stderr:hello-from-the-hook',
  'big:2097152',
];
const slowTools = Array.from({ length: 8 }, (_, i) => `slow:${(8 - i) * 15}`);
let gw: TestGateway;

// Far above what any call here takes (ms), so only a hook that never answers meets it.
const DEADLINE_MS = 10_000;
const hook = (extra: Record<string, unknown> = {}) => ({
  backend: { type: 'stdio', command: [process.execPath, SCRIPT] },
  modes: ['tool', 'approve'],
  tools: [...TOOLS, ...slowTools],
  timeout_ms: DEADLINE_MS,
  approval_timeout_ms: DEADLINE_MS,
  ...extra,
});

/** Until every hook of `g` has started (a loaded machine can take seconds to start one). */
async function hooksReady(g: TestGateway): Promise<void> {
  // A loop, not expect.poll: beforeAll uses it too.
  const end = Date.now() + 30_000;
  while ((await fetch(`${g.url}/readyz`)).status !== 200) {
    if (Date.now() > end)
      throw new Error(`hooks not ready after 30 s: ${await (await fetch(`${g.url}/readyz`)).text()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The gateway's log line for a call of `hook` that its failure mode answered. */
const failure = (g: TestGateway, hookName: string, method: string) =>
  g.logs.lines.filter(
    (l) =>
      l.msg === 'hook failed; answered by its failure mode' && l.hook === hookName && l.method === method,
  );

const call = (h: string, tool: string, method = 'hook.before_tool') =>
  gw.call(h, method, { tool, arguments: {} });

// These tests name hook processes by their host pid (kill(pid, 0)), which the sandbox's PID
// namespace hides; test/node/sandbox/sandbox.test.ts covers crash, restart and shutdown inside the sandbox.
const server = { sandbox: 'off' };

beforeAll(async () => {
  gw = await startTestGateway({
    server,
    tenants: {
      acme: tenantDoc({
        open: hook(),
        closed: hook({ on_failure: 'closed' }),
        // A limit far above use, for its in-flight gauge: it shows when calls have reached the hook's stdin.
        crashy: hook({ limits: { max_in_flight: 100 } }),
      }),
    },
  });
  await hooksReady(gw);
}, 60_000);
afterAll(() => gw?.close());

describe('stdio backend: hosting an unmodified PicoClaw hook process', () => {
  it('multiplexes calls in flight and matches answers by id, in any order', async () => {
    const answers = await Promise.all(slowTools.map((t) => call('open', t)));
    expect(answers.map((a) => a.result.result.for_llm)).toEqual(
      slowTools.map((t) => `slept ${t.split(':')[1]}`),
    );
  });

  it('answers a hung call by the failure mode at timeout_ms', async () => {
    const [open, closed, approval] = await Promise.all([
      call('open', 'hang'),
      call('closed', 'hang'),
      call('open', 'hang', 'hook.approve_tool'),
    ]);
    expect(open.result).toEqual({ action: 'continue' });
    expect(closed.result).toMatchObject({ action: 'deny_tool', reason: expect.stringMatching(/timed out/) });
    expect(approval.result).toMatchObject({ approved: false });
    // The hook's own deadline answered each (not the gateway's guard, a little later, nor anything else).
    const timedOut = expect.objectContaining({
      code: 'BACKEND_TIMEOUT',
      why: expect.stringMatching(new RegExp(`timed out after ${DEADLINE_MS} ms$`)),
    });
    expect(failure(gw, 'open', 'hook.before_tool')).toEqual([timedOut]);
    expect(failure(gw, 'closed', 'hook.before_tool')).toEqual([timedOut]);
    expect(failure(gw, 'open', 'hook.approve_tool')).toEqual([timedOut]);
  }, 60_000);

  it('takes a reply that leaves out "jsonrpc", as PicoClaw does', async () => {
    const started = Date.now();
    expect((await call('closed', 'nojsonrpc')).result).toEqual({
      action: 'respond',
      result: { for_llm: 'no jsonrpc' },
    });
    // Taken as the answer it is: not left to the deadline (a closed hook would have denied at it).
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS / 2);
  });

  it('never turns an answer Go reads as a denial into an approval', async () => {
    // A repeated key: JSON.parse keeps the first place and the last value; Go applies keys in order.
    const repeated = await call('open', 'repeated', 'hook.approve_tool');
    expect(repeated.result).toMatchObject({ approved: false, reason: expect.stringMatching(/failed/) });
    expect(gw.logs.lines).toContainEqual(
      expect.objectContaining({
        hook: 'open',
        code: 'BACKEND_BAD_REPLY',
        why: expect.stringContaining('approved'),
      }),
    );
    // "__PROTO__" is no field to Go; lowercased and assigned in JS it would become the prototype.
    expect((await call('open', 'proto', 'hook.approve_tool')).result).toEqual({ approved: false });
  });

  it('answers garbage by the failure mode', async () => {
    expect((await call('closed', 'garbage')).result.action).toBe('deny_tool');
    expect(gw.logs.lines.some((l) => l.msg === 'hook stdout line ignored' && l.hook === 'closed')).toBe(true);
  });

  it("passes replies over 1 MiB (the gateway is not PicoClaw's 1 MiB reader)", async () => {
    const body = await call('open', 'big:2097152');
    expect(body.result.result.for_llm).toHaveLength(2_097_152);
  });

  it("logs the hook's stderr, tagged with tenant and hook", async () => {
    await call('open', 'stderr:hello-from-the-hook');
    expect(gw.logs.lines).toContainEqual(
      expect.objectContaining({ tenant: 'acme', hook: 'open', stderr: 'hello-from-the-hook' }),
    );
  });

  it('answers pending calls at once when the process dies, then restarts it', async () => {
    const before = Number((await call('crashy', 'pid')).result.result.for_llm);
    const inFlight = async () =>
      Number(
        /hookgate_calls_in_flight\{tenant="acme",hook="crashy"\} (\d+)/.exec(await gw.metricsText())?.[1],
      );
    const held = [call('crashy', 'slow:60000'), call('crashy', 'hang', 'hook.approve_tool')];
    // Both written to the hook's stdin (the gauge counts them once they are handed to the backend),
    // so the hook reads them before the crash.
    await expect.poll(inFlight).toBe(2);
    const crash = await call('crashy', 'crash');
    const [pending, approval] = await Promise.all(held);
    expect(pending.result).toEqual({ action: 'continue' });
    expect(crash.result).toEqual({ action: 'continue' });
    expect(approval.result).toMatchObject({ approved: false });
    // Neither held call could answer by itself (a 60 s sleep, a hang) and neither met its deadline:
    // the process's exit answered them.
    const crashed = expect.objectContaining({ code: 'BACKEND_CRASHED' });
    expect(failure(gw, 'crashy', 'hook.before_tool')).toEqual([crashed, crashed]);
    expect(failure(gw, 'crashy', 'hook.approve_tool')).toEqual([crashed]);
    await expect
      .poll(async () => (await call('crashy', 'pid')).result.result?.for_llm, { interval: 100 })
      .toMatch(/^\d+$/);
    const after = Number((await call('crashy', 'pid')).result.result.for_llm);
    expect(after).not.toBe(before);
    expect(gw.logs.lines.some((l) => l.msg === 'hook process exited' && l.hook === 'crashy')).toBe(true);
  });

  it('stops the process on shutdown', async () => {
    const pid = Number((await call('open', 'pid')).result.result.for_llm);
    const other = await startTestGateway({ server, tenants: { acme: tenantDoc({ h: hook() }) } });
    await hooksReady(other);
    const childPid = Number(
      (await other.call('h', 'hook.before_tool', { tool: 'pid' })).result.result.for_llm,
    );
    await other.close();
    expect(() => process.kill(childPid, 0)).toThrow();
    expect(() => process.kill(pid, 0)).not.toThrow();
  });
});

/** A StdioBackend on its own, around a real hook process, with its log lines kept. */
function standalone(opts: Partial<StdioBackendOptions> = {}, command = [process.execPath, SCRIPT]) {
  const lines: Array<Record<string, any>> = [];
  const counts: Record<string, number> = {};
  const at = (level: string) => (obj: object, msg?: string) => lines.push({ level, msg, ...obj });
  const backend = new StdioBackend(
    { command, env: {}, inheritEnv: false, maxLineBytes: 1 << 20, backoffMs: 50, maxBackoffMs: 400, ...opts },
    {
      tenant: 't',
      hook: 'h',
      modes: ['tool'],
      log: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
      count: (name, by = 1) => {
        counts[name] = (counts[name] ?? 0) + by;
      },
    },
  );
  backends.push(backend);
  const call = (tool: string, args: Record<string, unknown> = {}, timeoutMs = DEADLINE_MS) =>
    backend.call('hook.before_tool', { tool, arguments: args }, timeoutMs);
  return { backend, lines, counts, call };
}
const backends: StdioBackend[] = [];
afterEach(async () => {
  await Promise.all(backends.splice(0).map((b) => b.close()));
});
const pidOf = async (call: ReturnType<typeof standalone>['call']) =>
  Number(((await call('pid')) as any).result.for_llm);

describe('stdio backend: spawning', () => {
  it('survives a respawn that fails with EMFILE and starts the hook once fds are free', async () => {
    // A gateway process of its own with every fd taken, as many idle connections would.
    const child = spawn(
      'sh',
      [
        '-c',
        'ulimit -n 256 && exec "$0" "$@"',
        process.execPath,
        '--import',
        'tsx',
        join(import.meta.dirname, '..', 'helpers', 'fd-starved-backend.ts'),
        SCRIPT,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b));
    child.stderr.on('data', (b: Buffer) => (err += b));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    const steps = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(err).not.toMatch(/Unhandled 'error' event|EMFILE/);
    expect(steps.find((s) => s.step === 'starved')).toMatchObject({ code: 'EMFILE' });
    expect(steps).toContainEqual(expect.objectContaining({ msg: 'hook did not start', code: 'EMFILE' }));
    expect(steps.find((s) => s.step === 'while-starved')).toMatchObject({ ready: false });
    expect(steps.find((s) => s.step === 'after')).toMatchObject({ ready: true });
    expect(code).toBe(0);
  }, 20_000);

  it('starts a hook whose command was missing, then not executable, once it is fixed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookgate-stdio-'));
    const path = join(dir, 'hook.sh');
    const { backend, lines, call } = standalone({}, [path]);
    await expect(backend.start()).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
    expect(backend.ready()).toBe(false);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'hook did not start', code: 'ENOENT' }));
    await writeFile(path, `#!/bin/sh\nexec "${process.execPath}" "${SCRIPT}"\n`, { mode: 0o644 });
    await expect
      .poll(() => lines.some((l) => l.msg === 'hook did not start' && l.code === 'EACCES'))
      .toBe(true);
    expect(backend.ready()).toBe(false);
    await chmod(path, 0o755);
    await expect.poll(() => backend.ready(), { interval: 50 }).toBe(true);
    expect(await pidOf(call)).toBeGreaterThan(0);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it('retries a hook whose hello failed, with backoff, like a crash', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookgate-stdio-'));
    const marker = join(dir, 'ready');
    // Says nothing (no hello answer) until the marker exists, then runs the real hook.
    const script = `if [ -e "${marker}" ]; then exec "${process.execPath}" "${SCRIPT}"; else exec sleep 30; fi`;
    // Far above what the real hook takes to answer (ms), so the retry after the marker gets in.
    const { backend, lines } = standalone({ helloTimeoutMs: 3000 }, ['sh', '-c', script]);
    await expect(backend.start()).rejects.toMatchObject({ code: 'BACKEND_TIMEOUT' });
    await writeFile(marker, '');
    await expect.poll(() => backend.ready(), { timeout: 30_000, interval: 50 }).toBe(true);
    expect(lines.filter((l) => l.msg === 'hook hello failed').length).toBeGreaterThanOrEqual(1);
    await rm(dir, { recursive: true, force: true });
  }, 60_000);

  it("retries a spawn whose wrapper failed (the hook's cgroup could not be made) and releases each spawn once it exits", async () => {
    let attempts = 0;
    let released = 0;
    const { backend, lines, call } = standalone({
      wrap: (spec) => {
        attempts++;
        if (attempts === 1) throw new Error('cannot make a cgroup: EBUSY');
        return {
          ...spec,
          release: () => {
            released++;
          },
        };
      },
    });
    await expect(backend.start()).rejects.toMatchObject({ code: 'BACKEND_UNAVAILABLE' });
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'hook did not start', err: 'cannot make a cgroup: EBUSY' }),
    );
    await expect.poll(() => backend.ready(), { interval: 50 }).toBe(true);
    expect(released).toBe(0);
    await call('crash').catch(() => {});
    await expect.poll(() => released, { interval: 50 }).toBe(1);
    await expect.poll(() => backend.ready(), { interval: 50 }).toBe(true);
    await backend.close();
    expect(released).toBe(2);
  }, 60_000);

  it('makes /readyz ready again without a gateway restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookgate-stdio-'));
    const path = join(dir, 'hook.sh');
    // Unsandboxed: the shell script runs SCRIPT, which is outside what a sandboxed hook is shown.
    const g = await startTestGateway(
      {
        server,
        tenants: { acme: tenantDoc({ late: { ...hook(), backend: { type: 'stdio', command: [path] } } }) },
      },
      { waitForHooks: false },
    );
    try {
      expect((await fetch(`${g.url}/readyz`)).status).toBe(503);
      await writeFile(path, `#!/bin/sh\nexec "${process.execPath}" "${SCRIPT}"\n`, { mode: 0o755 });
      await expect.poll(async () => (await fetch(`${g.url}/readyz`)).status, { interval: 100 }).toBe(200);
    } finally {
      await g.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe.skipIf(SKIP_SANDBOX)(`stdio backend: a hook deployed late, sandboxed${sandboxNote}`, () => {
  it('is shown the script that exists by the time it is retried (the view is planned per spawn)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookgate-stdio-'));
    const path = join(dir, 'hook.mjs');
    // mkdtemp makes a 0700 directory; as root the sandboxed hook runs as uid 65534 and must get in.
    await chmod(dir, 0o755);
    const g = await startTestGateway(
      {
        tenants: {
          acme: tenantDoc({
            late: { ...hook(), backend: { type: 'stdio', command: [process.execPath, path] } },
          }),
        },
      },
      { waitForHooks: false },
    );
    try {
      expect((await fetch(`${g.url}/readyz`)).status).toBe(503);
      await copyFile(SCRIPT, path);
      await expect.poll(async () => (await fetch(`${g.url}/readyz`)).status, { interval: 100 }).toBe(200);
    } finally {
      await g.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('stdio backend: a hook that stops reading stdin', () => {
  const MiB = 1024 * 1024;
  const pad = 'x'.repeat(512 * 1024);

  it('queues only up to the limit, refuses the rest at once and releases calls past their deadline', async () => {
    const { backend, call } = standalone({ maxQueuedBytes: 2 * MiB, stdinStallMs: 0 });
    await backend.start();
    await call('deaf');
    const started = Date.now();
    // Settled in this order: a refusal at once settles before any call meets its deadline.
    let settled = 0;
    const outcomes = Array.from({ length: 16 }, () =>
      call('ok', { pad }, DEADLINE_MS).then(
        () => 'answered',
        (err) => [err.code, Date.now() - started, settled++],
      ),
    );
    // Held: one message in the stream, then the queue up to the limit, plus the one that crossed it.
    expect(backend.queuedBytes).toBeGreaterThan(MiB);
    expect(backend.queuedBytes).toBeLessThan(2 * MiB + 2 * (pad.length + 200));
    const results = await Promise.all(outcomes);
    const overloaded = results.filter((r) => r[0] === 'BACKEND_OVERLOADED');
    const timedOut = results.filter((r) => r[0] === 'BACKEND_TIMEOUT');
    expect(overloaded.length).toBeGreaterThan(8);
    expect(timedOut.length).toBeGreaterThan(0);
    expect(overloaded.length + timedOut.length).toBe(16);
    // At once: every refusal settled before the first call met its deadline, and far before it.
    const firstTimeout = Math.min(...timedOut.map((r) => r[2] as number));
    for (const r of overloaded) {
      expect(r[2]).toBeLessThan(firstTimeout);
      expect(r[1]).toBeLessThan(DEADLINE_MS / 2);
    }
    // Past their deadlines the queued calls are gone; only what the stream had already taken stays.
    await expect.poll(() => backend.queuedBytes, { interval: 5 }).toBeLessThan(pad.length + 200);
    expect(backend.ready()).toBe(true);
  }, 60_000);

  it('restarts a hook whose stdin has not drained for stdinStallMs', async () => {
    const { backend, lines, call } = standalone({ stdinStallMs: 300 });
    await backend.start();
    const before = await pidOf(call);
    await call('deaf');
    await expect(call('ok', { pad }, DEADLINE_MS)).rejects.toMatchObject({ code: 'BACKEND_CRASHED' });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'hook stopped reading its stdin; restarting it' }),
    );
    await expect.poll(() => backend.ready(), { interval: 50 }).toBe(true);
    expect(await pidOf(call)).not.toBe(before);
    expect(backend.queuedBytes).toBe(0);
  });

  it('answers refused calls by the failure mode through the gateway', async () => {
    const g = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          deaf: hook({
            on_failure: 'closed',
            backend: { type: 'stdio', command: [process.execPath, SCRIPT], max_queued_bytes: MiB },
          }),
        }),
      },
    });
    try {
      await hooksReady(g);
      expect((await g.call('deaf', 'hook.before_tool', { tool: 'deaf', arguments: {} })).result).toEqual({
        action: 'continue',
      });
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          g.call('deaf', 'hook.before_tool', { tool: 'ok', arguments: { pad } }),
        ),
      );
      for (const a of answers) expect(a.result.action).toBe('deny_tool');
      expect(g.logs.lines.filter((l) => l.hook === 'deaf' && l.code).map((l) => l.code)).toContain(
        'BACKEND_OVERLOADED',
      );
    } finally {
      await g.close();
    }
  }, 60_000);
});

describe('stdio backend: stderr', () => {
  it('rate-limits and truncates stderr lines, still drains the pipe, and counts what it dropped', async () => {
    const { backend, lines, counts, call } = standalone({
      stderr: { burstLines: 10, linesPerSecond: 5, maxLineBytes: 100, summaryMs: 200 },
    });
    await backend.start();
    // 20k lines (~300 KB, far more than a pipe holds): the hook only answers if its stderr is read.
    expect(await call('flood:20000', {}, DEADLINE_MS)).toEqual({ action: 'continue' });
    const logged = () => lines.filter((l) => l.msg === 'hook stderr');
    const dropped = () =>
      lines
        .filter((l) => /^hook stderr: \d+ lines dropped$/.test(l.msg))
        .reduce((n, l) => n + (l.dropped as number), 0);
    // Every line is accounted for, logged or summarised as dropped (the summaries come in steps:
    // wait for the last one rather than the first).
    await expect.poll(() => dropped() + logged().length).toBe(20_000 + 1 + 1); // + the long line + the start banner
    expect(logged().length).toBeLessThanOrEqual(12);
    expect(counts.hook_stderr_dropped_lines).toBe(dropped());
    expect(backend.ready()).toBe(true);
  });

  it('cuts a long line and says how much it cut', async () => {
    const { backend, lines, call } = standalone({ stderr: { maxLineBytes: 100 } });
    await backend.start();
    await call('flood:0');
    await expect
      .poll(() => lines.find((l) => l.msg === 'hook stderr' && String(l.stderr).startsWith('yyy')))
      .toMatchObject({ stderr: `${'y'.repeat(100)}…[truncated 9900 bytes]` });
  });

  it('exports the dropped lines as hookgate_hook_stderr_dropped_lines_total', async () => {
    const g = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          noisy: hook({
            backend: {
              type: 'stdio',
              command: [process.execPath, SCRIPT],
              stderr: { burst_lines: 5, lines_per_second: 1 },
            },
          }),
        }),
      },
    });
    try {
      await hooksReady(g);
      await g.call('noisy', 'hook.before_tool', { tool: 'flood:1000', arguments: {} });
      await expect
        .poll(async () => {
          const text = await g.metricsText();
          return Number(
            /hookgate_hook_stderr_dropped_lines_total\{tenant="acme",hook="noisy"\} (\d+)/.exec(text)?.[1],
          );
        })
        .toBeGreaterThanOrEqual(990);
      expect(
        g.logs.lines.filter((l) => l.msg === 'hook stderr' && l.hook === 'noisy').length,
      ).toBeLessThanOrEqual(8);
    } finally {
      await g.close();
    }
  });
});
