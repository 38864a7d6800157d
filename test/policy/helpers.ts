import { compileConfig } from '../../src/config/compile.js';
import type { HookRuntime } from '../../src/config/runtime.js';
import { loadTranscript } from '../helpers/fixtures.js';

const SECRET = 'policy-test-secret-0123456789abcdefghij';

/** A compiled hook with the given settings (the backend is never started in policy tests). */
export function hookWith(settings: Record<string, unknown> = {}): HookRuntime {
  const config = compileConfig(
    {
      tenants: {
        acme: {
          auth: { keys: [{ alg: 'HS256', secret: SECRET }] },
          hooks: {
            weather: { backend: { type: 'module', module: 'x.js' }, tools: ['get_weather'], ...settings },
          },
        },
      },
    },
    (r) => r,
  );
  return config.tenants.get('acme')!.hooks.get('weather')!;
}

/** The params the host sent for the first request of `method` in a transcript. */
export function paramsFrom(file: string, method: string): Record<string, any> {
  const ex = loadTranscript(file).exchanges.find((e) => e.request.method === method);
  if (!ex) throw new Error(`${file} has no ${method}`);
  return structuredClone(ex.request.params);
}
