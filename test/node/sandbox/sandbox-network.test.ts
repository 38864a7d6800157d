import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  detectOutbound,
  outboundResolvConf,
  SLIRP_DNS,
  withOutboundNetwork,
} from '../../../src/node/sandbox/sandbox-network.js';
import { wrapInSandbox } from '../../../src/node/sandbox/sandbox.js';
import { REPO, startTestGateway, type TestGateway, tenantDoc } from '../../helpers/gateway.js';
import { REDIS_SERVER, startRedis, type TestRedis } from '../../helpers/redis.js';
import { SANDBOX } from '../../helpers/sandbox.js';

/**
 * Hooks run by a real gateway in real bwrap sandboxes try the network from inside: the host's
 * loopback services (a real Redis, the gateway's own port, another listener), a port of their own
 * on Redis's number, and a server outside the host's loopback, in a network namespace of the test's
 * own joined to the host by a veth pair (root only), or on the host's own non-loopback address.
 */

const PROBE = join(REPO, 'test', 'helpers', 'network-probe-hook.mjs');
const ROOT = process.getuid?.() === 0;
const OUTBOUND = detectOutbound();

function missing(): string | undefined {
  if (!SANDBOX.available) return SANDBOX.reason;
  if (SANDBOX.networkIsolation !== true) return `no network namespace here: ${SANDBOX.networkIsolation}`;
  if (!OUTBOUND.available) return OUTBOUND.reason;
  if (!REDIS_SERVER) return 'redis-server is not installed';
  return undefined;
}
const why = missing();
// CI installs bubblewrap, slirp4netns and redis-server: there a missing one fails these tests.
const skip = why !== undefined && !process.env.CI;
const note = skip ? ` (skipped: ${why})` : '';

/** The host's first non-loopback IPv4 address: outside the sandbox, reachable through its NAT. */
const HOST_ADDRESS = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

/** A TCP server that greets every connection with one line. */
async function greeter(host: string, greeting: string): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.end(`${greeting}\r\n`));
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, port: (server.address() as { port: number }).port };
}

/**
 * A network namespace of the test's own with a veth pair to the host (10.231.N.1 here, .2 there)
 * and a greeter listening in it: a non-loopback address no host service binds.
 */
class OutsideNamespace {
  readonly name = `hookgate-net-${process.pid}`;
  private readonly hostIf = `hgn${process.pid % 100000}h`;
  readonly subnet = `10.231.${process.pid % 250}`;
  readonly address = `${this.subnet}.2`;
  readonly port = 7443;
  private server?: ChildProcess;

  async start(): Promise<void> {
    const ip = (...args: string[]) => {
      const r = spawnSync('ip', args, { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr || r.error?.message}`);
    };
    ip('netns', 'add', this.name);
    ip('link', 'add', this.hostIf, 'type', 'veth', 'peer', 'name', 'inner', 'netns', this.name);
    ip('addr', 'add', `${this.subnet}.1/30`, 'dev', this.hostIf);
    ip('link', 'set', this.hostIf, 'up');
    ip('-n', this.name, 'addr', 'add', `${this.address}/30`, 'dev', 'inner');
    ip('-n', this.name, 'link', 'set', 'inner', 'up');
    ip('-n', this.name, 'link', 'set', 'lo', 'up');
    const code = `require('net').createServer((s) => s.end('+OUTSIDE\\r\\n')).listen(${this.port}, '${this.address}', () => console.log('up'))`;
    this.server = spawn('ip', ['netns', 'exec', this.name, process.execPath, '-e', code], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      this.server?.stdout?.once('data', () => resolve());
      this.server?.once('exit', (c) => reject(new Error(`the server in ${this.name} exited (${c})`)));
    });
  }

  stop(): void {
    this.server?.kill('SIGKILL');
    // Deleting the namespace deletes the veth pair with it.
    spawnSync('ip', ['netns', 'del', this.name]);
  }
}

/** slirp4netns processes whose parent is `pid` (this test process runs the gateway in-process). */
function helpersOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm === 'slirp4netns' && ppid === pid) out.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

/** The process exists and is not a zombie. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Redis answers PING with +PONG: the real one, not a hook squatting its port. */
function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => s.write('PING\r\n'));
    s.once('data', (b) => {
      resolve(b.toString().trim());
      s.destroy();
    });
    s.once('error', reject);
  });
}

const probeHook = (network?: string | boolean, marker = 'probe') => ({
  backend: {
    type: 'stdio',
    command: [process.execPath, PROBE, marker],
    ...(network === undefined ? {} : { sandbox: { network } }),
  },
  tools: ['probe'],
  timeout_ms: 15_000,
});

async function probe(gw: TestGateway, hook: string, args: object) {
  // A hook still starting (or restarting) is answered by its failure mode: wait until it answers.
  let res: any;
  await expect
    .poll(
      async () => {
        res = await gw.call(hook, 'hook.before_tool', { tool: 'probe', arguments: args });
        return res.result?.action;
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe('respond');
  return JSON.parse(res.result.result.for_llm) as { connected: string[]; listen?: string; read?: string };
}

/** The hex port as /proc/net/tcp writes a local address (":18EB"). */
const hexPort = (port: number) => `:${port.toString(16).toUpperCase().padStart(4, '0')} `;

describe.skipIf(skip)(`what a sandboxed hook's network reaches, from inside the sandbox${note}`, () => {
  let redis: TestRedis;
  let other: { server: Server; port: number };
  let outsideHost: { server: Server; port: number } | undefined;
  let outside: OutsideNamespace | undefined;
  let gw: TestGateway;
  let gwPort: number;

  beforeAll(async () => {
    if (why) throw new Error(why); // under CI, where it must work
    redis = await startRedis();
    other = await greeter('127.0.0.1', '+OTHER');
    if (HOST_ADDRESS) outsideHost = await greeter(HOST_ADDRESS, '+HOST-ADDRESS');
    if (ROOT) {
      outside = new OutsideNamespace();
      await outside.start();
    }
    gw = await startTestGateway({
      server: { sandbox: 'required' },
      tenants: {
        acme: tenantDoc({
          outbound: probeHook(undefined, 'outbound'),
          legacy: probeHook(true, 'legacy'),
          none: probeHook('none', 'none'),
          host: probeHook('host', 'host'),
        }),
      },
    });
    gwPort = Number(new URL(gw.url).port);
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
    await redis?.stop();
    other?.server.close();
    outsideHost?.server.close();
    outside?.stop();
  });

  const loopback = () => [
    { host: '127.0.0.1', port: redis.port },
    { host: '127.0.0.1', port: gwPort },
    { host: '127.0.0.1', port: other.port },
    { host: '::1', port: redis.port },
    // slirp4netns's gateway address, which maps onto the host's loopback unless told not to.
    { host: '10.0.2.2', port: redis.port },
  ];

  for (const hook of ['outbound', 'legacy'])
    it(`${hook === 'outbound' ? 'outbound (the default)' : 'network: true (read as outbound)'}: Redis, the gateway and another loopback listener are refused; the host's /proc/net is not there`, async () => {
      const seen = await probe(gw, hook, { connect: loopback(), read: '/proc/net/tcp' });
      for (const result of seen.connected) expect(result).not.toMatch(/^connected/);
      expect(seen.connected.slice(0, 4)).toEqual([
        'ECONNREFUSED',
        'ECONNREFUSED',
        'ECONNREFUSED',
        'ECONNREFUSED',
      ]);
      // The namespace's own table: none of the host's listeners.
      for (const port of [redis.port, gwPort, other.port]) expect(seen.read).not.toContain(hexPort(port));
    });

  it.skipIf(!ROOT)(
    `outbound: a server outside, in a network namespace of the test's own, answers${ROOT ? '' : ' (skipped: making a namespace and a veth pair needs root)'}`,
    async () => {
      const seen = await probe(gw, 'outbound', {
        connect: [{ host: outside!.address, port: outside!.port }],
      });
      expect(seen.connected).toEqual(['connected: +OUTSIDE']);
    },
  );

  it.skipIf(!HOST_ADDRESS)(
    `outbound: a server on the host's own non-loopback address answers, through the NAT${HOST_ADDRESS ? '' : ' (skipped: no non-loopback IPv4 address here)'}`,
    async () => {
      const seen = await probe(gw, 'outbound', {
        connect: [{ host: HOST_ADDRESS, port: outsideHost!.port }],
      });
      expect(seen.connected).toEqual(['connected: +HOST-ADDRESS']);
    },
  );

  it("outbound: a listen on Redis's port takes a port of the hook's own; the real Redis keeps it and can bind it again", async () => {
    const seen = await probe(gw, 'outbound', { listen: redis.port });
    expect(seen.listen).toBe('listening');
    expect(await ping(redis.port)).toBe('+PONG');
    // Redis restarts while the hook still listens on that port number: it binds and serves.
    await redis.stop();
    redis = await startRedis([], { port: redis.port });
    expect(await ping(redis.port)).toBe('+PONG');
  });

  it('none: only a loopback of its own; nothing outside answers', async () => {
    const targets = [...loopback()];
    if (outside) targets.push({ host: outside.address, port: outside.port });
    if (outsideHost && HOST_ADDRESS) targets.push({ host: HOST_ADDRESS, port: outsideHost.port });
    const seen = await probe(gw, 'none', { connect: targets, read: '/proc/net/tcp' });
    for (const result of seen.connected) expect(result).not.toMatch(/^connected/);
    for (const port of [redis.port, gwPort, other.port]) expect(seen.read).not.toContain(hexPort(port));
  });

  it("host (the escape hatch): the host's loopback services answer, and startup named the hook", async () => {
    const seen = await probe(gw, 'host', {
      connect: [{ host: '127.0.0.1', port: other.port }],
      read: '/proc/net/tcp',
    });
    expect(seen.connected).toEqual(['connected: +OTHER']);
    expect(seen.read).toContain(hexPort(redis.port));
    const warned = gw.logs.lines.find((l) => l.sandbox === 'host-network');
    expect(warned?.hooks).toEqual(['acme/host']);
  });
});

describe.skipIf(skip)(`the outbound network's helper lives and dies with its hook${note}`, () => {
  it('one slirp4netns per running outbound hook: none left over by crashes and restarts, none after close', async () => {
    if (why) throw new Error(why); // under CI, where it must work
    const gw = await startTestGateway({
      server: { sandbox: 'required' },
      tenants: { acme: tenantDoc({ a: probeHook(undefined, 'life-a'), b: probeHook('outbound', 'life-b') }) },
    });
    try {
      await expect.poll(() => helpersOf(process.pid).length, { timeout: 10_000 }).toBe(2);
      for (let i = 0; i < 3; i++) {
        const crashed = await gw.call('a', 'hook.before_tool', { tool: 'probe', arguments: { exit: true } });
        expect(crashed.result).toEqual({ action: 'continue' });
        // Restarted (with backoff): it answers from a fresh sandbox with a fresh network.
        await expect
          .poll(
            async () =>
              (await gw.call('a', 'hook.before_tool', { tool: 'probe', arguments: {} })).result?.action,
            {
              timeout: 15_000,
              interval: 100,
            },
          )
          .toBe('respond');
      }
      expect(
        gw.logs.lines.filter((l) => l.msg === 'hook process exited' && l.hook === 'a').length,
      ).toBeGreaterThanOrEqual(3);
      await expect.poll(() => helpersOf(process.pid).length, { timeout: 10_000 }).toBe(2);
    } finally {
      await gw.close();
    }
    await expect.poll(() => helpersOf(process.pid), { timeout: 10_000 }).toEqual([]);
  }, 90_000);
});

describe.skipIf(skip)(`the outbound network's helper when the gateway itself is killed${note}`, () => {
  it('a gateway killed with SIGKILL leaves no slirp4netns behind: it ends with the sandbox', async () => {
    if (why) throw new Error(why); // under CI, where it must work
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-net-'));
    chmodSync(dir, 0o755);
    const config = join(dir, 'hookgate.json');
    const doc = {
      server: { sandbox: 'required' },
      tenants: { acme: tenantDoc({ a: probeHook(undefined, 'killed') }) },
    };
    writeFileSync(config, JSON.stringify(doc), { mode: 0o644 });
    const gateway = spawn(
      process.execPath,
      [join(REPO, 'bin', 'hookgate.js'), 'serve', '--config', config, '--port', '0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    gateway.stdout?.on('data', (b) => {
      out += b;
    });
    gateway.stderr?.on('data', () => {});
    const exited = new Promise((r) => gateway.once('exit', r));
    try {
      await expect.poll(() => out, { timeout: 20_000 }).toContain('hook process ready');
      await expect.poll(() => helpersOf(gateway.pid!).length, { timeout: 10_000 }).toBe(1);
      const helpers = helpersOf(gateway.pid!);
      gateway.kill('SIGKILL');
      await exited;
      // bwrap dies with its parent (--die-with-parent), its sync fd closes, slirp4netns's exit fd ends.
      // Orphans are reaped by whoever is pid 1 here, maybe never: a zombie counts as gone.
      const alive = () => helpers.filter((pid) => running(pid));
      await expect.poll(alive, { timeout: 10_000 }).toEqual([]);
    } finally {
      gateway.kill('SIGKILL');
    }
  }, 60_000);
});

describe("outboundResolvConf: the resolver an outbound hook asks (the host's loopback is out of its reach)", () => {
  it("keeps the host's resolv.conf when it names a resolver outside the loopback", () => {
    expect(outboundResolvConf('nameserver 10.255.255.53\n')).toBeUndefined();
    expect(outboundResolvConf('nameserver 127.0.0.53\nnameserver 192.0.2.53\n')).toBeUndefined();
  });

  it("points at slirp4netns's forwarder when every resolver is on the loopback, keeping search and options", () => {
    expect(outboundResolvConf('nameserver 127.0.0.53\noptions edns0 trust-ad\nsearch corp.example\n')).toBe(
      `nameserver ${SLIRP_DNS}\noptions edns0 trust-ad\nsearch corp.example\n`,
    );
    expect(outboundResolvConf('nameserver ::1\n')).toBe(`nameserver ${SLIRP_DNS}\n`);
    expect(outboundResolvConf('')).toBe(`nameserver ${SLIRP_DNS}\n`);
  });
});

describe.skipIf(skip)(`an outbound hook on a host whose resolver is on its loopback${note}`, () => {
  it("reads a resolv.conf naming slirp4netns's forwarder, readable by the hook's uid", async () => {
    if (why || !SANDBOX.available || !OUTBOUND.available) throw new Error(why); // under CI, where it must work
    const policy = {
      bwrap: SANDBOX.bwrap,
      identity: SANDBOX.identity,
      host: SANDBOX.host,
      readOnly: [],
      writable: [],
      hide: [],
      network: false,
      cwd: '/',
      keepHome: false,
    };
    const plain = {
      command: '/bin/sh',
      args: ['-c', 'id -u; cat /etc/resolv.conf'],
      cwd: '/',
      env: { PATH: '/usr/bin:/bin' },
    };
    const slirp4netns = OUTBOUND.slirp4netns;
    const identity = SANDBOX.identity.kind;
    const runOnce = async () => {
      const spec = withOutboundNetwork(
        wrapInSandbox(plain, policy),
        slirp4netns,
        identity,
        'nameserver 127.0.0.53\n',
      );
      const child = spawn(spec.command, [...spec.args], {
        env: spec.env,
        stdio: Array.from({ length: 3 + (spec.extraPipes ?? 0) }, () => 'pipe' as const),
      });
      let out = '';
      child.stdout?.on('data', (b) => {
        out += b;
      });
      let err = '';
      child.stderr?.on('data', (b) => {
        err += b;
      });
      const exited = new Promise((r) => child.once('exit', r));
      await spec.attach?.(child);
      return { code: await exited, err, out };
    };
    // bwrap can fail to set up the new namespace's loopback while many namespaces are being made
    // (the stdio backend retries such a start): only that failure, on bwrap's own stderr, is retried.
    let run = await runOnce();
    for (let attempt = 1; attempt < 3 && /^bwrap: loopback: Failed RTM_NEWADDR/.test(run.err); attempt++)
      run = await runOnce();
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(run.out).toBe(`65534\nnameserver ${SLIRP_DNS}\n`);
  });
});
