import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import type { JsonRpcMessage } from '../../src/protocol/jsonrpc.js';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';
import { recorder } from '../helpers/recording-hook.js';

// The call path waits only where something on the way does (Gateway.call): a module hook that
// answers at once is decided, counted and answered before the caller's first await; a hook that
// answers later, or a hook with limits, goes through promises as before and ends the same way.
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    tenants: {
      acme: tenantDoc({
        // examples/weather-sdk.ts answers synchronously (its tool handler is not async).
        weather: {
          backend: { type: 'module', module: 'examples/weather-sdk.ts' },
          modes: ['tool'],
          tools: ['get_weather'],
        },
        limited: {
          backend: { type: 'module', module: 'examples/weather-sdk.ts' },
          modes: ['tool'],
          tools: ['get_weather'],
          limits: { max_in_flight: 4 },
        },
        // The recording hook's methods are async: it answers later.
        recorded: { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' }, modes: ['tool'] },
      }),
    },
  });
});
afterAll(() => gw?.close());

const principal: Principal = { tenant: 'acme', hooks: new Set(['*']), exp: Number.MAX_SAFE_INTEGER };
let nextId = 1;
const weatherCall = (): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'hook.before_tool',
  params: { tool: 'get_weather', arguments: { city: 'Berlin' } },
});

/** hookgate_calls_total for one hook, as /metrics renders it now (read synchronously). */
function callsCounted(hook: string): number {
  const line = gw.metrics
    .render()
    .split('\n')
    .find((l) => l.startsWith(`hookgate_calls_total{tenant="acme",hook="${hook}",method="hook.before_tool"`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

function respond(hook: string): Promise<string | null> {
  const runtime = gw.gateway.hook('acme', hook);
  if (!runtime) throw new Error(`no hook ${hook}`);
  return gw.gateway.respond(principal, runtime, weatherCall(), 'req-1') as Promise<string | null>;
}

describe('a call answered at once', () => {
  it('is decided and counted before respond returns, and answered as the hook answered', async () => {
    const before = callsCounted('weather');
    const answer = respond('weather');
    expect(callsCounted('weather')).toBe(before + 1);
    expect(JSON.parse((await answer) ?? '')).toMatchObject({
      result: { action: 'respond', result: { for_llm: 'Berlin: 18 C, light rain', is_error: false } },
    });
  });

  it('waits where something waits: an async hook, or a hook with limits, is decided after an await', async () => {
    recorder().answer = () => ({ action: 'continue' });
    for (const hook of ['recorded', 'limited']) {
      const before = callsCounted(hook);
      const answer = respond(hook);
      expect({ hook, counted: callsCounted(hook) }).toEqual({ hook, counted: before });
      expect(JSON.parse((await answer) ?? '').result.action).toBe(
        hook === 'recorded' ? 'continue' : 'respond',
      );
      expect({ hook, counted: callsCounted(hook) }).toEqual({ hook, counted: before + 1 });
    }
  });

  it('is refused by the policy at once as well: a tool the token does not name is never run', async () => {
    const runtime = gw.gateway.hook('acme', 'weather');
    if (!runtime) throw new Error('no hook weather');
    const narrowed: Principal = { ...principal, tools: ['get_time'] };
    const answer = await gw.gateway.respond(narrowed, runtime, weatherCall(), 'req-2');
    expect(JSON.parse(answer ?? '').result).toMatchObject({ action: 'continue' });
    expect(gw.logs.audits().at(-1)).toMatchObject({ rule: 'respond_tool_not_granted', hook: 'weather' });
  });

  it('reads the caller’s traceparent only when the gateway traces calls (this one does not)', async () => {
    const runtime = gw.gateway.hook('acme', 'weather');
    if (!runtime) throw new Error('no hook weather');
    let reads = 0;
    const call = {
      get traceparent() {
        reads++;
        return '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      },
    };
    const answer = await gw.gateway.respond(principal, runtime, weatherCall(), 'req-3', undefined, call);
    expect(JSON.parse(answer ?? '').result.action).toBe('respond');
    expect(reads).toBe(0);
  });
});
