import { describe, expect, it } from 'vitest';
import { createWorker } from '../../src/worker/worker.js';
import { testModules } from './entry.js';
import { ACME_KEY, BINDINGS, CONFIG, HOOK_MODULE } from './fixtures.js';

/** A fresh Worker (its own isolate-level cache) with its log lines. */
function fresh() {
  const lines: string[] = [];
  const worker = createWorker({ modules: testModules, sink: (l) => lines.push(l) });
  return { worker, lines };
}

function withHook(hook: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const doc = structuredClone(CONFIG) as any;
  doc.tenants.acme.hooks.tools = { ...doc.tenants.acme.hooks.tools, ...hook };
  return { ...BINDINGS, HOOKGATE_CONFIG: JSON.stringify(doc), ...extra };
}

async function configError(env: Record<string, unknown>) {
  const { worker, lines } = fresh();
  const res = await worker.fetch(new Request('https://hookgate.test/healthz'), env);
  expect(res.status).toBe(500);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('config_invalid');
  return { message: body.error.message, lines };
}

describe('config from bindings', () => {
  it('accepts HOOKGATE_CONFIG as an object (a [vars] table) as well as a JSON string', async () => {
    const { worker } = fresh();
    const res = await worker.fetch(new Request('https://hookgate.test/readyz'), {
      ...BINDINGS,
      HOOKGATE_CONFIG: CONFIG,
    });
    expect(res.status).toBe(200);
  });

  it('builds once per isolate and reuses the app', async () => {
    const { worker, lines } = fresh();
    for (let i = 0; i < 3; i++) {
      expect((await worker.fetch(new Request('https://hookgate.test/healthz'), { ...BINDINGS })).status).toBe(
        200,
      );
    }
    expect(lines.filter((l) => l.includes('hookgate worker ready'))).toHaveLength(1);
  });

  it('answers 500 config_invalid when HOOKGATE_CONFIG is missing or not JSON', async () => {
    expect((await configError({})).message).toBe('HOOKGATE_CONFIG');
    const notJson = await configError({ HOOKGATE_CONFIG: `{"secret": "${ACME_KEY}"` });
    expect(notJson.message).toBe('HOOKGATE_CONFIG');
    expect(notJson.lines.join('\n')).not.toContain(ACME_KEY);
  });

  it('names the path of an unset secret binding, and never logs secret values', async () => {
    const { message, lines } = await configError({
      HOOKGATE_CONFIG: BINDINGS.HOOKGATE_CONFIG,
      OTHER_KEY: BINDINGS.OTHER_KEY,
    });
    expect(message).toBe('tenants.acme.auth.keys.0.secret');
    const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'invalid gateway config');
    expect(logged).toMatchObject({
      level: 'error',
      code: 'config_invalid',
      paths: ['tenants.acme.auth.keys.0.secret'],
    });
    expect(lines.join('\n')).not.toContain(BINDINGS.OTHER_KEY);
  });

  it('refuses file: references with a clear message', async () => {
    const doc = structuredClone(CONFIG) as any;
    doc.tenants.acme.auth.keys[0].secret = 'file:/etc/hookgate/acme.key';
    const { message, lines } = await configError({ ...BINDINGS, HOOKGATE_CONFIG: JSON.stringify(doc) });
    expect(message).toBe('tenants.acme.auth.keys.0.secret');
    expect(lines.join('\n')).toContain('file: references are not available on Workers');
  });

  it('refuses a short literal HS256 secret without echoing it', async () => {
    const doc = structuredClone(CONFIG) as any;
    doc.tenants.acme.auth.keys[0].secret = 'short-literal-secret';
    const { message, lines } = await configError({ ...BINDINGS, HOOKGATE_CONFIG: JSON.stringify(doc) });
    expect(message).toBe('tenants.acme.auth.keys.0.secret');
    expect(lines.join('\n')).not.toContain('short-literal-secret');
  });

  it('refuses stdio backends (the Worker has no processes)', async () => {
    const { message } = await configError(
      withHook({ backend: { type: 'stdio', command: ['python3', 'hook.py'] } }),
    );
    expect(message).toBe('tenants.acme.hooks.tools.backend.type');
  });

  it('refuses a module that is not in the registry', async () => {
    const { message, lines } = await configError(
      withHook({ backend: { type: 'module', module: 'hooks/missing.ts' } }),
    );
    expect(message).toBe('tenants.acme.hooks.tools.backend.module');
    expect(lines.join('\n')).toContain(HOOK_MODULE);
  });

  it('accepts ./ in front of a registered module spec', async () => {
    const { worker } = fresh();
    const env = withHook({ backend: { type: 'module', module: `./${HOOK_MODULE}` } });
    expect((await worker.fetch(new Request('https://hookgate.test/readyz'), env)).status).toBe(200);
  });

  it('lists every problem path at once', async () => {
    const doc = structuredClone(CONFIG) as any;
    doc.tenants.acme.hooks.tools.modes = ['nope'];
    doc.tenants.acme.bogus = true;
    const { message } = await configError({ ...BINDINGS, HOOKGATE_CONFIG: JSON.stringify(doc) });
    expect(message.split(', ').sort()).toEqual(['tenants.acme.bogus', 'tenants.acme.hooks.tools.modes.0']);
  });
});
