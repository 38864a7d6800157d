import { describe, expect, it } from 'vitest';
import { requestOrigin } from '../../../src/hosts/shared/request-origin.js';
import type { CallContextIn, CallOrigin } from '../../../src/server/gateway.js';

/** A route's call context over a web Request, each read only when read (as the adapters' calls are). */
class RequestContext implements CallContextIn {
  constructor(private readonly request: Request) {}
  get signal(): AbortSignal {
    return this.request.signal;
  }
  get traceparent(): string | undefined {
    return this.request.headers.get('traceparent') ?? undefined;
  }
}

/** The origins a host route would build for two requests. */
function originsOf(...traceparents: Array<string | undefined>): CallOrigin[] {
  return traceparents.map((tp) =>
    requestOrigin(
      new RequestContext(
        new Request('http://gw.test/', { method: 'POST', headers: tp ? { traceparent: tp } : {} }),
      ),
      { dialect: 'claude-code', hostApproves: true, requestId: 'r1' },
    ),
  );
}

describe('requestOrigin (a host route’s call origin)', () => {
  it('carries the route’s fields and the caller’s traceparent', async () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const [withTrace, without] = await originsOf(tp, undefined);
    expect(withTrace).toMatchObject({
      dialect: 'claude-code',
      hostApproves: true,
      requestId: 'r1',
      traceparent: tp,
    });
    expect(without.traceparent).toBeUndefined();
  });

  it('reads the request’s signal through one getter shared by every origin, not one made per call', async () => {
    const [a, b] = await originsOf(undefined, undefined);
    // No accessor of its own: a per-object accessor gives each object a hidden class of its own,
    // and with it a path from the old generation to the whole request.
    expect(Object.getOwnPropertyDescriptor(a, 'signal')).toBeUndefined();
    const getter = (o: object) => {
      for (let p = Object.getPrototypeOf(o); p; p = Object.getPrototypeOf(p)) {
        const d = Object.getOwnPropertyDescriptor(p, 'signal');
        if (d) return d.get;
      }
      return undefined;
    };
    expect(getter(a)).toBeTypeOf('function');
    expect(getter(a)).toBe(getter(b));
    expect(a.signal).toBeInstanceOf(AbortSignal);
    expect(a.signal).not.toBe(b.signal);
  });

  it('a route may set the observer on its call’s origin', async () => {
    const [o] = await originsOf(undefined);
    const seen: string[] = [];
    o.observer = { failed: (why) => seen.push(why) };
    o.observer.failed('hook down');
    expect(seen).toEqual(['hook down']);
  });
});
