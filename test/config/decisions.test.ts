import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';

const SECRET = 'decisions-test-secret-0123456789abcdefghij';
const doc = (server: Record<string, unknown> = {}, tools: string[] = []) => ({
  server,
  tenants: {
    acme: {
      auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: 'env:S' }] },
      hooks: { h: { backend: { type: 'module', module: 'x.js' }, tools } },
    },
  },
});
const compile = (d: unknown) => compileConfig(d, (ref) => (ref === 'env:S' ? SECRET : ref));

function issues(d: unknown): string[] {
  try {
    compile(d);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) => i.path);
  }
}

describe('server.decisions', () => {
  it('is off unless asked for', () => {
    expect(compile(doc()).server.decisions.target).toEqual({ kind: 'off' });
  });

  it('takes stdout, off and file:PATH with a sample share, and names the path of anything else', () => {
    const on = compile(doc({ decisions: { to: 'file:logs/d.ndjson', sample: 0.25, include_args: true } }));
    expect(on.server.decisions).toEqual({
      target: { kind: 'file', path: 'logs/d.ndjson' },
      sample: 0.25,
      includeArgs: true,
      maxQueued: 10_000,
    });
    expect(compile(doc({ decisions: { to: 'stdout' } })).server.decisions.target).toEqual({ kind: 'stdout' });
    expect(issues(doc({ decisions: { to: 'otlp' } }))).toEqual(['server.decisions.to']);
    expect(issues(doc({ decisions: { to: 'file:' } }))).toEqual(['server.decisions.to']);
    expect(issues(doc({ decisions: { sample: 1.5 } }))).toEqual(['server.decisions.sample']);
    expect(issues(doc({ decisions: { too: 'stdout' } }))).toEqual(['server.decisions.too']);
  });
});

describe('config revision', () => {
  it('is the same for the same document and differs when anything in it does', () => {
    const a = compile(doc()).revision;
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(compile(doc()).revision).toBe(a);
    // Key order in the file does not matter; a narrowed grant or another server setting does.
    const reordered = { tenants: doc().tenants, server: {} };
    expect(compile(reordered).revision).toBe(a);
    expect(compile(doc({}, ['get_weather'])).revision).not.toBe(a);
    expect(compile(doc({ log_level: 'debug' })).revision).not.toBe(a);
  });
});
