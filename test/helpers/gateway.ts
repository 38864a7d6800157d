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
   * failure answer instead of the hook's.
   */
  ready(timeoutMs?: number): Promise<void>;
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
  start: { wsHighWaterBytes?: number; loadConfig?: () => ReloadedConfig } = {},
): Promise<TestGateway> {
  const config = compileTestConfig(doc);
  const logs = new LogCapture();
  const running = await startGateway({
    config,
    baseDir: REPO,
    log: createNodeLogger('debug', logs),
    ...start,
  });
  const gw: TestGateway = {
    ...running,
    config,
    logs,
    metricsText: () => fetchMetrics(running.url),
    async ready(timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      while ((await fetch(`${running.url}/readyz`)).status !== 200) {
        if (Date.now() > until) throw new Error(`backends not ready after ${timeoutMs} ms`);
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
  return gw;
}
