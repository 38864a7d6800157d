import { Writable } from 'node:stream';
import { compileConfig } from '../../src/config/compile.js';
import type { GatewayConfig } from '../../src/config/runtime.js';
import { nodeSecretResolver } from '../../src/node/config-loader.js';
import { createNodeLogger } from '../../src/node/logger.js';
import { type ReloadedConfig, type RunningGateway, startGateway } from '../../src/node/server.js';
import { signDevToken } from '../../src/node/token.js';

export const SECRET = 'test-secret-0123456789-abcdefghijklmnop';
export const REPO = new URL('../..', import.meta.url).pathname;

/** Captures the gateway's real pino output as parsed JSON lines (and the raw text, for leak checks). */
export class LogCapture extends Writable {
  readonly raw: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.raw.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    cb();
  }
  get lines(): Record<string, any>[] {
    return this.raw.map((l) => JSON.parse(l));
  }
  get text(): string {
    return this.raw.join('\n');
  }
  audits(): Record<string, any>[] {
    return this.lines.filter((l) => l.audit).map((l) => l.audit);
  }
}

export function tenantDoc(hooks: Record<string, unknown>, auth: Record<string, unknown> = {}) {
  return { auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: SECRET }], ...auth }, hooks };
}

export interface TestGateway extends RunningGateway {
  config: GatewayConfig;
  logs: LogCapture;
  /** `/metrics` with the admin token. */
  metricsText(): Promise<string>;
  /**
   * Resolves once `/readyz` says every backend is up. A stdio hook is a real (sandboxed) process:
   * on a loaded machine it can start after a call's deadline, and a call before then gets the
   * failure answer instead of the hook's. `only` ("tenant/hook") waits for those alone, beside a
   * hook that is down on purpose.
   */
  ready(timeoutMs?: number, only?: string[]): Promise<void>;
  token(opts?: { tenant?: string; hooks?: string[]; tools?: string[]; ttlSeconds?: number }): Promise<string>;
  post(tenant: string, hook: string, body: unknown, token?: string): Promise<Response>;
  call(
    hook: string,
    method: string,
    params: unknown,
    opts?: { tenant?: string; token?: string },
  ): Promise<any>;
}

let nextId = 1;

/** The admin token every test gateway gets unless its config names another (see `metricsText()`). */
export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789-abcdefghijklmnop';
process.env.HOOKGATE_TEST_ADMIN_TOKEN = TEST_ADMIN_TOKEN;

/** `/metrics` as the admin sees it. */
export async function fetchMetrics(url: string, token = TEST_ADMIN_TOKEN): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${await res.text()}`);
  return res.text();
}

/** A real gateway on 127.0.0.1 (random port) with its logs captured. */
export function compileTestConfig(doc: { server?: object; tenants: Record<string, unknown> }): GatewayConfig {
  return compileConfig(
    {
      server: { port: 0, log_level: 'debug', admin_token: 'env:HOOKGATE_TEST_ADMIN_TOKEN', ...doc.server },
      tenants: doc.tenants,
    },
    nodeSecretResolver(REPO),
  );
}

export async function startTestGateway(
  doc: { server?: object; tenants: Record<string, unknown> },
  start: {
    wsHighWaterBytes?: number;
    loadConfig?: () => ReloadedConfig;
    /**
     * Wait until every hook process said hello before returning (the default): a test that calls a
     * stdio hook before it is up gets the failure answer, not the hook's. `false` for tests about
     * hooks that are down or not yet up.
     */
    waitForHooks?: boolean;
  } = {},
): Promise<TestGateway> {
  const config = compileTestConfig(doc);
  const logs = new LogCapture();
  const running = await startGateway({
    config,
    baseDir: REPO,
    log: createNodeLogger('debug', logs),
    wsHighWaterBytes: start.wsHighWaterBytes,
    loadConfig: start.loadConfig,
  });
  const gw: TestGateway = {
    ...running,
    config,
    logs,
    metricsText: () => fetchMetrics(running.url),
    async ready(timeoutMs = 60_000, only?: string[]) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        let res = await fetch(`${running.url}/readyz`, {
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        });
        // A config with its own admin token: without details, only "all ready" can be waited for.
        if (res.status === 401 || res.status === 403) res = await fetch(`${running.url}/readyz`);
        if (res.status === 200) return;
        const body = (await res.json()) as { not_ready?: string[] };
        const down = body.not_ready ?? ['(the hooks: /readyz gave no details)'];
        const waiting = only && body.not_ready ? down.filter((h) => only.includes(h)) : down;
        if (waiting.length === 0) return;
        if (Date.now() > until)
          throw new Error(`hooks not ready after ${timeoutMs} ms: ${waiting.join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async token(opts = {}) {
      const tenant = config.tenants.get(opts.tenant ?? [...config.tenants.keys()][0])!;
      return signDevToken(tenant, {
        hooks: opts.hooks ?? ['*'],
        tools: opts.tools,
        ttlSeconds: opts.ttlSeconds ?? 600,
      });
    },
    async post(tenant, hook, body, token) {
      return fetch(`${running.url}/v1/tenants/${tenant}/hooks/${hook}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    async call(hook, method, params, opts = {}) {
      const tenant = opts.tenant ?? [...config.tenants.keys()][0];
      const token = opts.token ?? (await gw.token({ tenant }));
      const id = nextId++;
      const res = await gw.post(tenant, hook, { jsonrpc: '2.0', id, method, params }, token);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      const body = (await res.json()) as any;
      if (body.id !== id) throw new Error(`id mismatch: ${JSON.stringify(body)}`);
      return body;
    },
  };
  // Below the suite's hookTimeout (30 s), so a hook that never comes up fails with this message.
  if (start.waitForHooks !== false) await gw.ready(25_000);
  return gw;
}
