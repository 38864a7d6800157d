import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';

const SECRET = 'tracing-test-secret-0123456789abcdefghijkl';
const doc = (server: Record<string, unknown> = {}) => ({
  server,
  tenants: {
    acme: {
      auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: 'env:S' }] },
      hooks: { h: { backend: { type: 'module', module: 'x.js' } } },
    },
  },
});
const env: Record<string, string> = { 'env:S': SECRET, 'env:OTLP_KEY': 'key-value', 'env:BAD': 'a\r\nb' };
const compile = (d: unknown) =>
  compileConfig(d, (ref) => {
    if (ref in env) return env[ref] as string;
    if (ref.startsWith('env:')) throw new Error(`environment variable ${ref.slice(4)} is not set`);
    return ref;
  });

function issues(d: unknown): Array<{ path: string; message: string }> {
  try {
    compile(d);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues;
  }
}

describe('server.tracing', () => {
  it('is off unless asked for', () => {
    expect(compile(doc()).server.tracing).toBeUndefined();
  });

  it('appends /v1/traces to the base URL, resolves header references and keeps the defaults', () => {
    const on = compile(
      doc({
        tracing: {
          otlp_endpoint: 'https://otel.example:4318/base/',
          headers: { 'X-Api-Key': 'env:OTLP_KEY' },
        },
      }),
    );
    expect(on.server.tracing).toEqual({
      tracesUrl: 'https://otel.example:4318/base/v1/traces',
      logsUrl: 'https://otel.example:4318/base/v1/logs',
      headers: { 'x-api-key': 'key-value' },
      serviceName: 'hookgate',
      sample: 1,
    });
    const plain = compile(
      doc({ tracing: { otlp_endpoint: 'http://collector:4318', service_name: 'gw', sample: 0.1 } }),
    );
    expect(plain.server.tracing).toMatchObject({
      tracesUrl: 'http://collector:4318/v1/traces',
      serviceName: 'gw',
      sample: 0.1,
    });
  });

  it('sends decision records as OTLP logs only beside server.tracing', () => {
    const both = compile(doc({ tracing: { otlp_endpoint: 'http://c:4318' }, decisions: { to: 'otlp' } }));
    expect(both.server.decisions.target).toEqual({ kind: 'otlp' });
    expect(both.server.tracing?.logsUrl).toBe('http://c:4318/v1/logs');
    expect(issues(doc({ decisions: { to: 'otlp' } }))).toEqual([
      { path: 'server.decisions.to', message: expect.stringMatching(/server\.tracing/) },
    ]);
  });

  it('names the path of each bad part, and never quotes a header value', () => {
    const bad = (tracing: unknown) => issues(doc({ tracing }));
    expect(bad({ otlp_endpoint: 'collector:4318' }).map((i) => i.path)).toEqual([
      'server.tracing.otlp_endpoint',
    ]);
    expect(bad({ otlp_endpoint: 'ftp://collector' }).map((i) => i.path)).toEqual([
      'server.tracing.otlp_endpoint',
    ]);
    expect(bad({ otlp_endpoint: 'http://u:p@collector:4318' })[0]?.message).toMatch(/credentials/);
    expect(bad({ otlp_endpoint: 'http://collector:4318/?a=1' })[0]?.message).toMatch(/base URL/);
    expect(bad({ otlp_endpoint: 'http://c:4318', sample: 2 }).map((i) => i.path)).toEqual([
      'server.tracing.sample',
    ]);
    expect(bad({ otlp_endpoint: 'http://c:4318', extra: 1 }).map((i) => i.path)).toEqual([
      'server.tracing.extra',
    ]);
    expect(bad({ otlp_endpoint: 'http://c:4318', headers: { 'bad name': 'x' } }).map((i) => i.path)).toEqual([
      'server.tracing.headers.bad name',
    ]);
    expect(
      bad({ otlp_endpoint: 'http://c:4318', headers: { 'Content-Type': 'x' } }).map((i) => i.path),
    ).toEqual(['server.tracing.headers.Content-Type']);
    const unset = bad({ otlp_endpoint: 'http://c:4318', headers: { authorization: 'env:MISSING' } });
    expect(unset).toEqual([
      { path: 'server.tracing.headers.authorization', message: expect.stringMatching(/MISSING/) },
    ]);
    const broken = bad({ otlp_endpoint: 'http://c:4318', headers: { authorization: 'env:BAD' } });
    expect(broken.map((i) => i.path)).toEqual(['server.tracing.headers.authorization']);
    expect(JSON.stringify(broken)).not.toContain('a\\r\\nb');
  });
});
