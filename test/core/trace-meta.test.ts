import { describe, expect, it } from 'vitest';
import { traceMetaOf, withTraceMeta } from '../../src/core/trace-meta.js';

const TP = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('trace context in params._meta (stdio hooks)', () => {
  it('adds _meta.traceparent to a copy, keeping the params and a _meta the host sent', () => {
    const params = { tool: 'x', arguments: { a: 1 }, _meta: { progressToken: 7, traceparent: 'old' } };
    const sent = withTraceMeta(params, TP);
    expect(sent).toEqual({ tool: 'x', arguments: { a: 1 }, _meta: { progressToken: 7, traceparent: TP } });
    expect(params._meta.traceparent).toBe('old');
    expect(traceMetaOf(sent)).toBe(TP);
    expect(withTraceMeta({ tool: 'y' }, TP)).toEqual({ tool: 'y', _meta: { traceparent: TP } });
  });

  it('leaves what is not an object alone and reads nothing from it', () => {
    expect(withTraceMeta(null, TP)).toBeNull();
    expect(withTraceMeta([1], TP)).toEqual([1]);
    expect(traceMetaOf({ _meta: { traceparent: 5 } })).toBeUndefined();
    expect(traceMetaOf({ tool: 'x' })).toBeUndefined();
    expect(traceMetaOf(undefined)).toBeUndefined();
  });
});
