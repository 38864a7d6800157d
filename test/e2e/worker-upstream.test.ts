/**
 * End to end on loopback: the Node gateway calls the weather SDK hook served as a Worker (workerd
 * through miniflare, on 127.0.0.1) through its `http` backend. Every call is signed per Standard
 * Webhooks by the gateway and verified by `toFetchHandler` inside workerd; a gateway holding the
 * wrong secret gets 401 from the Worker and answers with the hook's failure answer.
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { SignJWT } from 'jose';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { createNodeLogger } from '../../src/node/logger.js';
import { type RunningGateway, startGateway } from '../../src/node/server.js';

// workerd offline: no request.cf download, no telemetry.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
/** The gateway Worker's date (wrangler.toml), which the installed workerd is known to accept. */
const COMPATIBILITY_DATE = /^compatibility_date = "([0-9-]+)"/m.exec(
  readFileSync(`${REPO}/wrangler.toml`, 'utf8'),
)![1];
const JWT_KEY = 'e2e-acme-hs256-key-0123456789-abcdefghijklmn';
/** Standard Webhooks secrets: `whsec_` + base64 of 32 random-looking bytes. */
const HOOK_SECRET = `whsec_${Buffer.from('hookgate-e2e-webhook-secret-32by').toString('base64')}`;
const WRONG_SECRET = `whsec_${Buffer.from('not-the-secret-the-worker-knows!').toString('base64')}`;

/**
 * The Worker: the SDK example's hook object behind toFetchHandler, the secret from a binding. The
 * example also starts a stdio server when run as a program (src/sdk/stdio.ts, Node only); that
 * module is replaced by an inert stub so the bundle is what a Worker can run.
 */
const WORKER_SOURCE = `
import hook from './examples/weather-sdk.ts';
import { toFetchHandler } from './src/sdk/index.ts';
let handler;
export default {
  fetch(request, env) {
    handler ??= toFetchHandler(hook, { secret: env.WEBHOOK_SECRET });
    return handler(request);
  },
};
`;

async function bundleWorker(): Promise<string> {
  const result = await build({
    absWorkingDir: REPO,
    stdin: { contents: WORKER_SOURCE, resolveDir: REPO, sourcefile: 'weather-worker.js', loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    mainFields: ['browser', 'module', 'main'],
    logLevel: 'silent',
    plugins: [
      {
        name: 'stub-sdk-stdio',
        setup(b) {
          b.onResolve({ filter: /sdk\/stdio(\.js|\.ts)?$/ }, () => ({
            path: 'sdk-stdio',
            namespace: 'stub',
          }));
          b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
            contents:
              'export const isMainModule = () => false;\n' +
              "export function serveStdio() { throw new Error('no stdio in a Worker'); }\n",
            loader: 'js',
          }));
          // Anything else Node-only would not run in workerd: fail the bundle loudly.
          b.onResolve({ filter: /^node:/ }, (args) => ({
            errors: [{ text: `${args.path} imported by ${args.importer} cannot run in the Worker` }],
          }));
        },
      },
    ],
  });
  return result.outputFiles[0].text;
}

class Lines extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: string, cb: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    cb();
  }
}

let mf: Miniflare;
let workerUrl: URL;
let gateway: RunningGateway;
const logs = new Lines();
let nextId = 1;

async function jwt(): Promise<string> {
  return new SignJWT({ tenant: 'acme', hooks: ['weather', 'weather_wrong_secret', 'weather_closed'] })
    .setProtectedHeader({ alg: 'HS256', kid: 'acme-1', typ: 'JWT' })
    .setIssuedAt()
    .setAudience('hookgate')
    .setSubject('e2e')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(JWT_KEY));
}

async function call(hook: string, method: string, params: unknown): Promise<any> {
  const id = nextId++;
  const res = await fetch(`${gateway.url}/v1/tenants/acme/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await jwt()}` },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body.id).toBe(id);
  return body;
}

const beforeTool = (tool: string, args: Record<string, unknown>) => ({
  meta: { AgentID: 'main', TurnID: 'turn-1', Iteration: 1 },
  context: { inbound: { channel: 'telegram', chat_id: '1' } },
  tool,
  arguments: args,
});

beforeAll(async () => {
  mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    cf: false,
    // miniflare 5: each worker is a `config` (modules in a manifest, bindings in env).
    workers: [
      {
        config: {
          name: 'weather-hook',
          compatibilityDate: COMPATIBILITY_DATE,
          manifest: {
            mainModule: 'worker.mjs',
            modules: { 'worker.mjs': { type: 'esm', contents: await bundleWorker() } },
          },
          env: { WEBHOOK_SECRET: { type: 'text', value: HOOK_SECRET } },
        },
      },
    ],
  });
  workerUrl = await mf.ready;

  const http = (secret: string, onFailure: 'open' | 'closed' = 'open') => ({
    backend: { type: 'http', url: workerUrl.href, secret, timeout_ms: 3000 },
    modes: ['llm', 'tool'],
    tools: ['get_weather'],
    on_failure: onFailure,
    timeout_ms: 4000,
  });
  const config = compileConfig(
    {
      server: { host: '127.0.0.1', port: 0, log_level: 'debug' },
      tenants: {
        acme: {
          auth: { audience: 'hookgate', keys: [{ kid: 'acme-1', alg: 'HS256', secret: 'env:E2E_JWT_KEY' }] },
          hooks: {
            weather: http('env:E2E_HOOK_SECRET'),
            weather_wrong_secret: http(WRONG_SECRET),
            weather_closed: http(WRONG_SECRET, 'closed'),
          },
        },
      },
    },
    (ref) => {
      const env: Record<string, string> = { E2E_JWT_KEY: JWT_KEY, E2E_HOOK_SECRET: HOOK_SECRET };
      if (!ref.startsWith('env:')) return ref;
      const v = env[ref.slice(4)];
      if (!v) throw new Error(`${ref} is not set`);
      return v;
    },
  );
  gateway = await startGateway({ config, baseDir: REPO, log: createNodeLogger('debug', logs) });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await mf?.dispose();
});

describe('Node gateway → http backend → SDK hook in workerd', () => {
  it('the Worker itself refuses an unsigned call', async () => {
    const res = await fetch(workerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.before_tool', params: {} }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).error.code).toBe('SIGNATURE_MISSING');
  });

  it('answers before_tool with the hook’s respond, signed and verified end to end', async () => {
    const body = await call('weather', 'hook.before_tool', beforeTool('get_weather', { city: 'Berlin' }));
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: body.id,
      result: {
        action: 'respond',
        result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
      },
    });
  });

  it('passes the SDK’s tool injection in before_llm (get_weather is the hook’s own tool)', async () => {
    const request = {
      model: 'm',
      messages: [{ role: 'user', content: 'weather in Paris?' }],
      tools: [
        { type: 'function', function: { name: 'exec', description: 'run', parameters: { type: 'object' } } },
      ],
    };
    const body = await call('weather', 'hook.before_llm', {
      meta: { AgentID: 'main', TurnID: 'turn-2', Iteration: 1 },
      ...request,
    });
    expect(body.result.action).toBe('modify');
    const names = body.result.request.tools.map((t: any) => t.function.name);
    expect(names).toEqual(['exec', 'get_weather']);
  });

  it('answers the failure answer when the Worker refuses the signature (wrong secret)', async () => {
    const open = await call(
      'weather_wrong_secret',
      'hook.before_tool',
      beforeTool('get_weather', { city: 'Berlin' }),
    );
    expect(open.result).toEqual({ action: 'continue' });
    const closed = await call(
      'weather_closed',
      'hook.before_tool',
      beforeTool('get_weather', { city: 'Berlin' }),
    );
    expect(closed.result).toMatchObject({ action: 'deny_tool' });
    expect(closed.result.reason).toMatch(/weather_closed" failed/);
    // The gateway logged why (the Worker's 401 and its reason), without any secret.
    const failures = logs.lines
      .map((l) => JSON.parse(l))
      .filter((l) => typeof l.why === 'string' && l.hook?.startsWith('weather_'));
    expect(failures.length).toBeGreaterThanOrEqual(2);
    for (const f of failures) expect(f.why).toMatch(/upstream answered HTTP 401: .*SIGNATURE_INVALID/);
    const text = logs.lines.join('\n');
    expect(text).not.toContain(WRONG_SECRET);
    expect(text).not.toContain(HOOK_SECRET);
  });
});
