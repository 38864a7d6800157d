import { describe, expect, it } from 'vitest';
import { BridgeUsageError, endpointsFromUrl, parseBridgeArgs } from '../../src/bridge/index.js';

const URL_WS = 'wss://hooks.example.com/v1/tenants/acme/hooks/weather/ws';
const env = { HOOKGATE_TOKEN: 'jwt.token.here' };

function usageError(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BridgeUsageError);
    return (err as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('parseBridgeArgs', () => {
  it('applies the documented defaults', () => {
    expect(parseBridgeArgs(['--url', URL_WS], env)).toEqual({
      wsUrl: URL_WS,
      httpUrl: 'https://hooks.example.com/v1/tenants/acme/hooks/weather',
      token: 'jwt.token.here',
      onFailure: 'open',
      timeoutMs: 4500,
      approvalTimeoutMs: 55000,
      transport: 'auto',
      allowRespond: undefined,
      maxMessageBytes: 8 * 1024 * 1024,
      logLevel: 'info',
    });
  });

  it('reads every flag, in both --flag value and --flag=value forms', () => {
    const o = parseBridgeArgs(
      [
        `--url=${URL_WS}`,
        '--on-failure',
        'closed',
        '--timeout-ms=1200',
        '--approval-timeout-ms',
        '30000',
        '--transport',
        'http',
        '--allow-respond',
        'get_weather, calendar,,',
        '--log-level',
        'warn',
      ],
      env,
    );
    expect(o).toMatchObject({
      onFailure: 'closed',
      timeoutMs: 1200,
      approvalTimeoutMs: 30000,
      transport: 'http',
      allowRespond: ['get_weather', 'calendar'],
      logLevel: 'warn',
    });
    expect(parseBridgeArgs(['--url', URL_WS, '--allow-respond='], env).allowRespond).toEqual([]);
  });

  it('refuses a token on the command line without repeating it', () => {
    for (const argv of [
      ['--url', URL_WS, '--token', 'abc.def.ghi'],
      ['--token=abc.def.ghi', '--url', URL_WS],
    ]) {
      const message = usageError(() => parseBridgeArgs(argv, env));
      expect(message).toMatch(/--token is not accepted.*HOOKGATE_TOKEN/);
      expect(message).not.toContain('abc.def.ghi');
    }
  });

  it('needs the token in HOOKGATE_TOKEN and accepts a pasted "Bearer " prefix', () => {
    expect(usageError(() => parseBridgeArgs(['--url', URL_WS], {}))).toMatch(/HOOKGATE_TOKEN is not set/);
    expect(usageError(() => parseBridgeArgs(['--url', URL_WS], { HOOKGATE_TOKEN: '  ' }))).toMatch(/not set/);
    expect(parseBridgeArgs(['--url', URL_WS], { HOOKGATE_TOKEN: 'Bearer a.b.c' }).token).toBe('a.b.c');
  });

  it('fails fast with a clear message on bad flags', () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /--url is required/],
      [['--url', URL_WS, '--on-failure', 'maybe'], /--on-failure must be one of open, closed/],
      [['--url', URL_WS, '--transport', 'grpc'], /--transport must be one of ws, http, auto/],
      [['--url', URL_WS, '--timeout-ms', '0'], /--timeout-ms must be a whole number/],
      [['--url', URL_WS, '--timeout-ms', '1.5'], /--timeout-ms must be a whole number/],
      [['--url', URL_WS, '--approval-timeout-ms', '99999999999'], /--approval-timeout-ms/],
      [['--url', URL_WS, '--timeout-ms'], /--timeout-ms needs a value/],
      [['--url', '--timeout-ms', '5'], /--url needs a value/],
      [['--url', URL_WS, '--verbose'], /unknown option --verbose/],
      [['--url', URL_WS, 'extra'], /unexpected argument "extra"/],
      [['--url', URL_WS, '--url', URL_WS], /--url given twice/],
      [['--url', 'not a url'], /--url is not a valid URL/],
      [['--url', 'ftp://x/y'], /--url must start with ws:\/\//],
    ];
    for (const [argv, pattern] of cases)
      expect(usageError(() => parseBridgeArgs(argv, env))).toMatch(pattern);
  });
});

describe('endpointsFromUrl', () => {
  it('derives the HTTP endpoint from the WebSocket one and back', () => {
    expect(endpointsFromUrl('ws://127.0.0.1:8080/v1/tenants/a/hooks/b/ws')).toEqual({
      wsUrl: 'ws://127.0.0.1:8080/v1/tenants/a/hooks/b/ws',
      httpUrl: 'http://127.0.0.1:8080/v1/tenants/a/hooks/b',
    });
    expect(endpointsFromUrl('https://gw.example/v1/tenants/a/hooks/b')).toEqual({
      wsUrl: 'wss://gw.example/v1/tenants/a/hooks/b/ws',
      httpUrl: 'https://gw.example/v1/tenants/a/hooks/b',
    });
  });

  it('refuses a token in the URL', () => {
    expect(() => endpointsFromUrl('wss://gw.example/v1/tenants/a/hooks/b/ws?token=x')).toThrow(
      /must not carry a token/,
    );
    expect(() => endpointsFromUrl('wss://user:pw@gw.example/v1/tenants/a/hooks/b/ws')).toThrow(/credentials/);
  });
});
