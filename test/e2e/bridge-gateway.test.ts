import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { signDevToken } from '../../src/node/token.js';
import { TestHost } from '../bridge/helpers/host.js';
import {
  loadTranscript,
  matchingReply,
  transcriptFiles,
  trustedTranscriptHook,
} from '../helpers/fixtures.js';
import { REPO, startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { hostEffect } from '../helpers/picoclaw-host.js';

/**
 * The whole PicoClaw path on real sockets and processes: a host driving `hookgate bridge` over
 * stdio exactly as PicoClaw does, the bridge on a WebSocket to a real gateway, the gateway hosting
 * the hook. Answers are judged by what PicoClaw would do with them.
 */

describe.each(transcriptFiles())('PicoClaw → bridge → gateway → hook: %s', (file) => {
  const t = loadTranscript(file);
  const name = t.hello.params.name as string;
  let gw: TestGateway;
  let host: TestHost;

  beforeAll(async () => {
    // A hook whose hello fails never becomes ready; its transcript expects exactly that.
    const helloFails = t.lines.some((l) => l.dir === 'hook->host' && l.msg?.id === 1 && 'error' in l.msg);
    gw = await startTestGateway(
      { tenants: { acme: tenantDoc({ [name]: trustedTranscriptHook(t) }) } },
      { waitForHooks: !helloFails },
    );
    const token = await gw.token({ hooks: [name] });
    host = new TestHost(
      // Longer than the hook's own deadline (3 s): a call the hook leaves unanswered gets the
      // gateway's failure answer, not the bridge's.
      ['--url', `${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/${name}/ws`, '--timeout-ms', '20000'],
      {
        HOOKGATE_TOKEN: token,
      },
    );
  });
  afterAll(async () => {
    host?.kill();
    await gw?.close();
  });

  it('answers hello at once, then every call with the effect the transcript expects', async () => {
    await host.ready();
    const hello = await host.call('hook.hello', t.hello.params);
    // At once: the bridge answers hello itself, and only then connects to the gateway.
    expect(host.stderr).not.toMatch(/connected to the gateway/);
    expect(hello.id).toBe(1);
    expect(hello.result).toMatchObject({ ok: true });
    const helloFailed = t.lines.some((l) => l.dir === 'hook->host' && l.msg?.id === 1 && 'error' in l.msg);
    const ids: number[] = [];
    for (const ex of t.exchanges) {
      ids.push(host.request(ex.request.method, ex.request.params));
      for (const n of t.notifications) host.notify(n.method, n.params);
    }
    for (const n of t.notifications) host.notify(n.method, n.params);
    for (const [i, ex] of t.exchanges.entries()) {
      expect(ids[i]).toBe(ex.request.id);
      const answer = await host.answer(ids[i], 30_000);
      expect(answer.error).toBeUndefined();
      const expected = helloFailed ? undefined : matchingReply(ex);
      const want = hostEffect(
        ex.request.method,
        ex.request.params,
        expected && ('error' in expected ? { error: expected.error } : { result: expected.result }),
      );
      expect(
        hostEffect(ex.request.method, ex.request.params, { result: answer.result }),
        `${file} ${ex.request.method}`,
      ).toEqual(want);
    }
    // Notifications are never answered: exactly one line per request.
    expect(host.lines).toHaveLength(1 + t.exchanges.length);
  });
});

describe('gateway killed mid-call, then back', () => {
  let dir: string;
  let gateway: ChildProcess | undefined;
  let host: TestHost | undefined;
  const port = 20_000 + Math.floor(Math.random() * 20_000);

  const doc = () => ({
    server: { port, log_level: 'info' },
    tenants: {
      acme: tenantDoc({
        h: {
          backend: { type: 'module', module: join(REPO, 'test', 'helpers', 'slow-hook.ts') },
          modes: ['tool', 'approve'],
          tools: ['get_weather', 'slow'],
        },
      }),
    },
  });

  /** The gateway once it says it listens (a loaded machine may take seconds), and its stderr. */
  let gatewayStderr = '';
  async function startGatewayProcess(): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      [join(REPO, 'bin', 'hookgate.js'), 'serve', '--config', join(dir, 'hookgate.json')],
      {
        cwd: REPO,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    gatewayStderr = '';
    child.stderr!.on('data', (b) => {
      gatewayStderr += b;
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (b) => {
        out += b;
        if (/hookgate listening/.test(out)) resolve();
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`gateway exited (${code ?? signal}) before listening:\n${out}\n${gatewayStderr}`)),
      );
    });
    return child;
  }

  /** Resolves once the gateway's slow hook has started `n` calls (it says so on stderr). */
  function slowCallsStarted(n: number): Promise<void> {
    const started = () => gatewayStderr.split('slow-hook: started').length - 1;
    return new Promise((resolve, reject) => {
      const check = () => {
        if (started() >= n) resolve();
      };
      gateway!.stderr!.on('data', check);
      gateway!.once('exit', () => reject(new Error(`gateway exited:\n${gatewayStderr}`)));
      check();
    });
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookgate-bridge-'));
    writeFileSync(join(dir, 'hookgate.json'), JSON.stringify(doc()));
  });
  afterEach(() => {
    host?.kill();
    gateway?.kill('SIGKILL');
  });

  it('answers pending calls by the failure mode at once, reconnects, and serves calls again', async () => {
    gateway = await startGatewayProcess();
    const config = compileConfig(doc(), (r) => r);
    const token = await signDevToken(config.tenants.get('acme')!, { hooks: ['h'], ttlSeconds: 600 });
    host = new TestHost(
      [
        '--url',
        `ws://127.0.0.1:${port}/v1/tenants/acme/hooks/h/ws`,
        '--timeout-ms',
        '30000',
        '--approval-timeout-ms',
        '60000',
      ],
      {
        HOOKGATE_TOKEN: token,
      },
    );
    expect(
      (await host.call('hook.hello', { name: 'h', version: 1, modes: ['tool', 'approve'] })).result.ok,
    ).toBe(true);
    expect((await host.call('hook.before_tool', { tool: 'get_weather', arguments: {} })).result.action).toBe(
      'respond',
    );

    // Calls the hook is still working on (it answers `slow` only after ms) when the gateway dies.
    const pendingTool = host.request('hook.before_tool', { tool: 'slow', arguments: { ms: 120_000 } });
    const pendingApproval = host.request('hook.approve_tool', { tool: 'slow', arguments: { ms: 120_000 } });
    await slowCallsStarted(2);
    const killedAt = Date.now();
    gateway.kill('SIGKILL');
    const tool = await host.answer(pendingTool, 60_000);
    const approval = await host.answer(pendingApproval, 60_000);
    // At once: not by the bridge's own deadlines (30 s and 60 s), which would answer the same.
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    expect(tool.result).toEqual({ action: 'continue' });
    expect(approval.result).toMatchObject({ approved: false });
    expect(typeof approval.result.reason).toBe('string');

    gateway = await startGatewayProcess();
    await expect
      .poll(
        async () =>
          (await host!.call('hook.before_tool', { tool: 'get_weather', arguments: {} }, 6000)).result.action,
        {
          timeout: 20_000,
          interval: 200,
        },
      )
      .toBe('respond');
    expect(host.stderr).not.toContain(token);
  }, 180_000);

  it('with a wrong token, answers by the failure mode and says why on stderr', async () => {
    gateway = await startGatewayProcess();
    host = new TestHost(
      [
        '--url',
        `ws://127.0.0.1:${port}/v1/tenants/acme/hooks/h/ws`,
        '--on-failure',
        'closed',
        '--timeout-ms',
        '1500',
      ],
      {
        HOOKGATE_TOKEN: 'eyJhbGciOiJIUzI1NiJ9.eyJ0ZW5hbnQiOiJhY21lIn0.d3Jvbmctc2lnbmF0dXJlLXh4eHh4eHh4',
      },
    );
    expect((await host.call('hook.hello', { name: 'h', version: 1, modes: ['tool'] })).result.ok).toBe(true);
    const answer = await host.call('hook.before_tool', { tool: 'get_weather', arguments: {} }, 30_000);
    expect(answer.result.action).toBe('deny_tool');
    await host.waitForStderr(/401/);
    expect(host.stderr).not.toContain('d3Jvbmctc2lnbmF0dXJl');
  }, 120_000);
});

describe('token expiry over the bridge', () => {
  it('the gateway closes the socket with 4001 when the token expires, and the bridge says so', async () => {
    const gw = await startTestGateway({
      tenants: {
        acme: tenantDoc({
          h: { backend: { type: 'module', module: 'examples/weather-hook.ts' }, tools: ['get_weather'] },
        }),
      },
    });
    const token = await gw.token({ hooks: ['h'], ttlSeconds: 4 });
    // The gateway's clock stands still at the signing until the bridge is connected and has been
    // answered once (starting the bridge can take longer than the token's life on a loaded
    // machine), then runs on: the socket, opened with 4 s left, must close with 4001 once they pass.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const host = new TestHost(
      ['--url', `${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/h/ws`, '--timeout-ms', '10000'],
      { HOOKGATE_TOKEN: token },
    );
    try {
      await host.call('hook.hello', { name: 'h', version: 1, modes: ['tool'] });
      const first = await host.call('hook.before_tool', {
        tool: 'get_weather',
        arguments: { city: 'Paris' },
      });
      vi.useRealTimers();
      expect(first.result, host.stderr).toMatchObject({
        action: 'respond',
        result: { for_llm: 'Paris: 21 C, clear' },
      });
      await host.waitForStderr(/4001 token expired/, 60_000);
      expect(host.stderr).toMatch(/set a fresh HOOKGATE_TOKEN/);
      expect(
        (await host.call('hook.before_tool', { tool: 'get_weather', arguments: { city: 'Paris' } })).result,
      ).toEqual({ action: 'continue' });
    } finally {
      vi.useRealTimers();
      host.kill();
      await gw.close();
    }
  }, 120_000);
});

describe('slow consumer over the bridge', () => {
  it('the gateway closes a slow reader with 1013; the bridge reconnects and, in auto mode, uses HTTP meanwhile', async () => {
    // A high-water mark of a few bytes: every answer the gateway writes trips the slow-consumer
    // close, so each WebSocket carries one answer and is then closed as a slow consumer.
    const gw = await startTestGateway(
      {
        tenants: {
          acme: tenantDoc({
            h: { backend: { type: 'module', module: 'examples/weather-hook.ts' }, tools: ['get_weather'] },
          }),
        },
      },
      { wsHighWaterBytes: 8 },
    );
    const token = await gw.token({ hooks: ['h'] });
    const host = new TestHost(
      ['--url', `${gw.url.replace('http', 'ws')}/v1/tenants/acme/hooks/h/ws`, '--timeout-ms', '3000'],
      { HOOKGATE_TOKEN: token },
    );
    try {
      await host.call('hook.hello', { name: 'h', version: 1, modes: ['tool'] });
      await host.waitForStderr(/1013 slow consumer/, 10_000);
      const answers: unknown[] = [];
      for (const city of ['Paris', 'Berlin', 'Paris', 'Berlin', 'Paris']) {
        answers.push(
          (await host.call('hook.before_tool', { tool: 'get_weather', arguments: { city } })).result,
        );
      }
      // A call that was on a socket as it closed gets the failure answer (continue); the others
      // the hook's answer.
      expect(answers.filter((a) => (a as { action: string }).action === 'respond').length).toBeGreaterThan(0);
      expect(answers.every((a) => ['respond', 'continue'].includes((a as { action: string }).action))).toBe(
        true,
      );
      const posts = gw.logs.lines.filter(
        (l) => l.msg === 'request' && l.method === 'POST' && l.path === '/v1/tenants/acme/hooks/h',
      );
      // While the WebSocket was down, calls went over HTTP.
      expect(posts.length, host.stderr).toBeGreaterThan(0);
      expect(host.stderr).toMatch(/WebSocket down; calls use HTTP POST/);
      // The bridge never took the close for a refused token.
      expect(host.stderr).not.toMatch(/HOOKGATE_TOKEN|token is no longer accepted|refused the token/);
    } finally {
      host.kill();
      await gw.close();
    }
  }, 30_000);
});
