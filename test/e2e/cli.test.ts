import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBridgeArgs } from '../../src/bridge/options.js';
import { REPO, SECRET } from '../helpers/gateway.js';
import { runCli } from '../helpers/cli.js';

const BIN = join(REPO, 'bin', 'hookgate.js');
const run = promisify(execFile);

async function cli(args: string[], env: Record<string, string> = {}, cwd = REPO) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: err.stdout as string, stderr: err.stderr as string };
  }
}

function configFile(doc: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'hookgate-cli-'));
  const file = join(dir, 'hookgate.yaml');
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return file;
}

const good = `
tenants:
  acme:
    auth:
      keys:
        - { kid: k1, alg: HS256, secret: env:ACME_HOOK_SECRET }
    hooks:
      weather:
        backend: { type: stdio, command: [python3, weather_hook.py] }
        tools: [get_weather]
`;

describe('hookgate CLI', () => {
  it('check-config accepts a valid file and names every problem of a bad one, exiting non-zero', async () => {
    const ok = await cli(['check-config', '--config', configFile(good)], { ACME_HOOK_SECRET: SECRET });
    expect(ok).toMatchObject({ code: 0, stdout: 'config ok: 1 tenant(s), 1 hook(s)\n' });
    const bad = await cli([
      'check-config',
      '--config',
      configFile(good.replace('command: [python3, weather_hook.py]', 'cwd: .')),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('tenants.acme.hooks.weather.backend.command: required');
    const unset = await cli(['check-config', '--config', configFile(good)], { ACME_HOOK_SECRET: '' });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain(
      'tenants.acme.auth.keys.0.secret: environment variable ACME_HOOK_SECRET is not set',
    );
  });

  it('token prints a JWT for the tenant, with the requested hooks, tools and ttl', async () => {
    const out = await cli(
      [
        'token',
        '--config',
        configFile(good),
        '--tenant',
        'acme',
        '--hooks',
        'weather',
        '--tools',
        'get_weather',
        '--ttl',
        '15m',
      ],
      { ACME_HOOK_SECRET: SECRET },
    );
    expect(out.code).toBe(0);
    const [, payload] = out.stdout.trim().split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims).toMatchObject({
      tenant: 'acme',
      hooks: ['weather'],
      tools: ['get_weather'],
      aud: 'hookgate',
    });
    expect(claims.exp - claims.iat).toBe(900);
  });

  it('refuses an unknown command in one line with exit code 2', async () => {
    const out = await cli(['frobnicate']);
    expect(out.code).toBe(2);
    expect(out.stderr).toBe('hookgate: unknown command "frobnicate" (hookgate --help lists them)\n');
  });

  it('serve --help exits 0 with its usage', async () => {
    const out = await cli(['serve', '--help']);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^usage: hookgate serve/);
  });
});

/** Starts `hookgate serve` and resolves with its URL (from the "hookgate listening" log line). */
async function serveProcess(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], {
    cwd: opts.cwd ?? REPO,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => {
    out += b;
  });
  child.stderr.on('data', (b) => {
    err += b;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  // Its "listening" line or its exit, however long a loaded machine takes to start it.
  const url = await Promise.race([
    new Promise<string>((resolve) => {
      const check = () => {
        const m = /"url":"([^"]+)","msg":"hookgate listening"/.exec(out);
        if (m) resolve(m[1]);
      };
      child.stdout.on('data', check);
      check();
    }),
    exited.then((code) => {
      throw new Error(`serve exited ${code}: ${err}`);
    }),
  ]);
  return { child, url, exited, output: () => out + err };
}

async function callWeather(url: string, tenant: string, token: string) {
  const res = await fetch(`${url}/v1/tenants/${tenant}/hooks/weather`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'hook.before_tool',
      params: { tool: 'get_weather', arguments: { city: 'Berlin' } },
    }),
  });
  return res.json();
}

const children: ReturnType<typeof spawn>[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

// Each test starts several CLI processes (from the TypeScript sources): seconds apiece on a loaded
// machine, so the deadline is far above what they take on an idle one.
describe('hookgate serve', { timeout: 120_000 }, () => {
  it('says in one line, without a stack, that the port is in use, and stops its hooks', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const { port } = blocker.address() as AddressInfo;
    try {
      // A stdio hook is already running when listen fails: the process must still exit.
      const out = await cli(['serve', '--config', 'examples/hookgate.yaml', '--port', String(port)], {
        ACME_HOOK_SECRET: SECRET,
        HOOKGATE_ADMIN_TOKEN: `${SECRET}-admin`,
        LOG_LEVEL: 'silent',
      });
      expect(out.code).toBe(1);
      expect(out.stderr).toBe(
        `hookgate serve: error: 127.0.0.1:${port} is already in use (another hookgate?); choose another --port or PORT\n`,
      );
    } finally {
      blocker.close();
    }
  });

  it('runs what `hookgate init` wrote, found as ./hookgate.yaml, on PORT and HOST from the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookgate-init-'));
    expect((await cli(['init', '--dir', dir])).code).toBe(0);
    const served = await serveProcess([], {
      cwd: dir,
      env: { PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    });
    const token = await cli(['token', '--tenant', 'local', '--hooks', 'weather'], {}, dir);
    expect(token.code).toBe(0);
    expect(await callWeather(served.url, 'local', token.stdout.trim())).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: {
        action: 'respond',
        result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
      },
    });
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('runs examples/hookgate.yaml as printed (check-config, serve, token, a call to its stdio hook)', async () => {
    const env = { ACME_HOOK_SECRET: SECRET, HOOKGATE_ADMIN_TOKEN: `${SECRET}-admin` };
    const config = join(REPO, 'examples', 'hookgate.yaml');
    expect(await cli(['check-config', '--config', config], env)).toMatchObject({
      code: 0,
      stdout: 'config ok: 1 tenant(s), 1 hook(s)\n',
    });
    const served = await serveProcess(['--port', '0'], { env: { ...env, HOOKGATE_CONFIG: config } });
    const token = await cli(['token', '--config', config, '--tenant', 'acme', '--hooks', 'weather'], env);
    expect(await callWeather(served.url, 'acme', token.stdout.trim())).toMatchObject({
      id: 7,
      result: { action: 'respond', result: { for_llm: expect.stringContaining('Berlin') } },
    });
    const ready = await fetch(`${served.url}/readyz`);
    expect(ready.status).toBe(200);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it("examples/picoclaw-hooks.json is what `hookgate setup picoclaw` prints for the example's hook, and the bridge accepts its flags", async () => {
    const snippet = JSON.parse(readFileSync(join(REPO, 'examples', 'picoclaw-hooks.json'), 'utf8'));
    const printed = await runCli(
      [
        'setup',
        'picoclaw',
        '--config',
        join(REPO, 'examples', 'hookgate.yaml'),
        '--tenant',
        'acme',
        '--hook',
        'weather',
        '--url',
        'https://hookgate.example.com',
        // The example is for hookgate installed globally on the host's PATH (as examples/Dockerfile does).
        '--command',
        'hookgate',
      ],
      {
        cwd: REPO,
        env: {
          ACME_HOOK_SECRET: 'example-secret-0123456789-abcdefghijklmnop',
          HOOKGATE_ADMIN_TOKEN: 'example-admin-0123456789-abcdefghijklmnopq',
        },
      },
    );
    expect(printed.code, printed.err).toBe(0);
    expect(snippet).toEqual(JSON.parse(printed.out));
    const entry = snippet.hooks.processes.weather;
    expect(entry.command.slice(0, 2)).toEqual(['hookgate', 'bridge']);
    const options = parseBridgeArgs(entry.command.slice(2), { HOOKGATE_TOKEN: 'a.b.c' });
    expect(options.wsUrl).toMatch(/\/v1\/tenants\/acme\/hooks\/weather\/ws$/);
    // No token in the file: the bridge inherits PicoClaw's environment.
    expect(entry.env).toBeUndefined();
  });
});

describe('npm start (serve --demo)', { timeout: 120_000 }, () => {
  it('prints a dev token and a curl call that works as printed', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--demo', '--port', '0'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    await expect.poll(() => out, { timeout: 90_000 }).toMatch(/-d '.*'\n/);
    const curl = out.slice(out.indexOf('  curl ')).split('\n\n')[0];
    const url = /curl -s (\S+)/.exec(curl)![1];
    const token = /Authorization: Bearer ([^"]+)"/.exec(curl)![1];
    const body = /-d '(.*)'/.exec(curl)![1];
    expect(out).toMatch(/valid for 1 hour/);
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        action: 'respond',
        result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
      },
    });
    // The second call as printed: the rules-only hook denies rm -rf.
    const second = out.slice(out.indexOf('hooks/guard \\'));
    const deniedBody = /-d '(.*)'/.exec(second)![1];
    const denied = await fetch(url.replace('/hooks/weather', '/hooks/guard'), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: deniedBody,
    });
    expect(await denied.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { action: 'deny_tool', reason: 'rm -rf is not allowed' },
    });
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(3600);
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
  });
});
