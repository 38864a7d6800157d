import { describe, expect, it } from 'vitest';
import { createWorkerLogger } from '../../src/worker/logger.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJ0ZW5hbnQiOiJhY21lIn0.c2lnbmF0dXJlLXZhbHVl';

function capture(level = 'debug') {
  const lines: string[] = [];
  const log = createWorkerLogger(level, (l) => lines.push(l));
  return { log, lines, last: () => JSON.parse(lines.at(-1)!) };
}

describe('worker logger', () => {
  it('writes one JSON line per entry with level, time, service and msg', () => {
    const { log, last } = capture();
    log.info({ request_id: 'r1', status: 200 }, 'request');
    expect(last()).toMatchObject({
      level: 'info',
      service: 'hookgate',
      request_id: 'r1',
      status: 200,
      msg: 'request',
    });
    expect(typeof last().time).toBe('number');
  });

  it('redacts secret keys at any depth, case-insensitively', () => {
    const { log, lines, last } = capture();
    log.warn({
      Authorization: 'Bearer abc',
      nested: { deeper: { secret: 'whsec_c2VjcmV0', password: 'p', list: [{ token: 't' }] } },
      headers: new Headers({ 'sec-websocket-protocol': 'hookgate.v1, bearer.xyz', 'x-ok': 'fine' }),
    });
    const e = last();
    expect(e.Authorization).toBe('[redacted]');
    expect(e.nested.deeper).toEqual({
      secret: '[redacted]',
      password: '[redacted]',
      list: [{ token: '[redacted]' }],
    });
    expect(e.headers).toEqual({ 'sec-websocket-protocol': '[redacted]', 'x-ok': 'fine' });
    expect(lines.join()).not.toMatch(/whsec_|xyz|abc/);
  });

  it('scrubs JWT- and bearer-shaped text from every string, messages and errors included', () => {
    const { log, lines, last } = capture();
    log.error({ err: new Error(`verify failed for ${JWT}`), note: `got Bearer ${JWT}` }, `token ${JWT}`);
    const e = last();
    expect(e.err).toEqual({ type: 'Error', message: 'verify failed for [redacted]' });
    expect(e.msg).toBe('token [redacted]');
    expect(lines.join()).not.toContain('eyJ');
  });

  it('keeps child bindings, survives cycles and BigInt, and honours the level', () => {
    const { log, lines } = capture('warn');
    const child = log.child({ tenant: 'acme', token: JWT });
    child.info({}, 'hidden');
    expect(lines).toHaveLength(0);
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    child.warn({ cyclic }, 'shown');
    const e = JSON.parse(lines[0]);
    expect(e).toMatchObject({ level: 'warn', tenant: 'acme', token: '[redacted]', msg: 'shown' });
    expect(e.cyclic).toEqual({ n: '1', self: '[circular]' });
    const silent = capture('silent');
    silent.log.error({}, 'nothing');
    expect(silent.lines).toHaveLength(0);
  });
});
