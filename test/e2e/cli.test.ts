import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, SECRET } from '../helpers/gateway.js';

const BIN = join(REPO, 'bin', 'hookgate.js');
const run = promisify(execFile);

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: REPO,
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

  it('refuses an unknown command with usage and exit code 2', async () => {
    const out = await cli(['frobnicate']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('usage:');
  });
});

describe('npm start (serve --demo)', () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterAll(() => {
    for (const c of children) c.kill('SIGTERM');
  });

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
    await expect.poll(() => out, { timeout: 15_000 }).toMatch(/-d '.*'\n/);
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
    const [, payload] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    expect(claims.exp - claims.iat).toBe(3600);
    child.kill('SIGTERM');
    const code = await new Promise((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
  });
});
