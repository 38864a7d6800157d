import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { REPO, SECRET } from '../helpers/gateway.js';
import { runCli } from '../helpers/cli.js';

/**
 * `hookgate serve` as a real process: SIGTERM answers the calls in flight, then exits 0, and says
 * so in its log: what it was waiting for when the drain began, and what it drained and cut at the end.
 */
const dir = mkdtempSync(join(tmpdir(), 'hookgate-shutdown-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const config = join(dir, 'hookgate.yaml');
writeFileSync(
  config,
  JSON.stringify({
    server: { host: '127.0.0.1', port: 0 },
    tenants: {
      acme: {
        auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: 'env:SHUTDOWN_TEST_SECRET' }] },
        hooks: {
          // Holds a call to `held` until the test creates the release file; says so on stderr.
          slow: {
            backend: { type: 'module', module: join(REPO, 'test/helpers/held-hook.ts') },
            modes: ['tool'],
            tools: ['held'],
          },
        },
      },
    },
  }),
);
const env = { ...process.env, SHUTDOWN_TEST_SECRET: SECRET };
const release = join(dir, 'release');

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'hook.before_tool',
  params: { tool: 'held', arguments: { release } },
});

describe('serve on SIGTERM', () => {
  it('logs the drain’s start and end with the calls in flight, answered before it exits', async () => {
    const child = spawn(process.execPath, [join(REPO, 'bin/hookgate.js'), 'serve', '--config', config], {
      env,
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
    await expect.poll(() => /"msg":"hookgate listening"/.test(out), { timeout: 20_000 }).toBe(true);
    const url = /"url":"([^"]+)"/.exec(out)![1];
    const token = (
      await runCli(['token', '--config', config, '--tenant', 'acme', '--hooks', 'slow'], { cwd: dir, env })
    ).out.trim();
    const route = `${url}/v1/tenants/acme/hooks/slow`;

    // One call over HTTP and one over a WebSocket, both held by the hook when SIGTERM comes.
    const http = fetch(route, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(call(1)),
    }).then((r) => r.json());
    const ws = new WebSocket(`${route.replace(/^http/, 'ws')}/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const wsAnswer = new Promise<any>((resolve, reject) => {
      ws.on('message', (data) => resolve(JSON.parse(String(data))));
      ws.on('error', reject);
    });
    const wsClosed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.on('open', () => ws.send(JSON.stringify(call(2))));
    await expect.poll(() => err.match(/held-hook: started/g)?.length ?? 0, { timeout: 20_000 }).toBe(2);

    child.kill('SIGTERM');
    // The drain has begun with both calls held; only then are they let go.
    await expect
      .poll(() => out.includes('shutting down: answering the calls in flight'), { timeout: 20_000 })
      .toBe(true);
    writeFileSync(release, '');
    expect(await http).toMatchObject({ id: 1, result: { action: 'respond' } });
    expect(await wsAnswer).toMatchObject({ id: 2, result: { action: 'respond' } });
    expect(await wsClosed).toBe(1001);
    expect(await exited).toBe(0);

    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    const start = lines.find((l) => l.msg === 'shutting down: answering the calls in flight');
    expect(start).toMatchObject({ why: 'SIGTERM', in_flight: { websockets: 1, ws_calls: 1, http_calls: 1 } });
    const end = lines.find((l) => l.msg === 'shut down');
    expect(end).toMatchObject({
      drained: { ws_calls: 1, http_calls: 1 },
      cut: { ws_calls: 0, http_calls: 0, websockets_not_closing: 0 },
      websockets_closed: 1,
    });
    expect(lines.indexOf(start)).toBeLessThan(lines.indexOf(end));
  });
});
