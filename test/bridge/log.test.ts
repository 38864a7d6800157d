import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/bridge/log.js';
import { createNodeLogger } from '../../src/node/logger.js';
import { TOKEN } from './helpers/host.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sink() {
  const lines: string[] = [];
  return { lines, write: (s: string) => lines.push(s) };
}

describe('createLogger (the bridge log)', () => {
  it("writes the gateway's line format: level label, epoch time, service, msg", () => {
    const bridgeOut = sink();
    const gatewayOut = sink();
    createLogger(bridgeOut, 'info', []).warn('upstream down', { attempt: 2 });
    createNodeLogger('info', gatewayOut).warn({ attempt: 2 }, 'upstream down');
    const bridge = JSON.parse(bridgeOut.lines[0]);
    const gateway = JSON.parse(gatewayOut.lines[0]);
    expect(Object.keys(bridge).sort()).toEqual(Object.keys(gateway).sort());
    expect(bridge).toEqual({ ...gateway, time: bridge.time, service: 'hookgate-bridge' });
    expect(gateway.service).toBe('hookgate');
    expect(bridge).toMatchObject({ level: 'warn', msg: 'upstream down', attempt: 2 });
    expect(Number.isInteger(bridge.time)).toBe(true);
    expect(Math.abs(bridge.time - Date.now())).toBeLessThan(60_000);
    expect(bridgeOut.lines[0].endsWith('}\n')).toBe(true);
  });

  it('filters by level', () => {
    const out = sink();
    const log = createLogger(out, 'warn', []);
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(out.lines.map((l) => JSON.parse(l).level)).toEqual(['warn', 'error']);
  });

  it('never writes a given secret: raw, JSON-escaped, in the message, a field or an error', () => {
    const out = sink();
    // Not JWT-shaped, so only the mask can catch it; the quote and backslash are escaped in JSON.
    const secret = 's3cr"t\\t0ken';
    const escaped = JSON.stringify(secret).slice(1, -1);
    const log = createLogger(out, 'info', [secret]);
    log.warn(`refused ${secret}`, {
      header: `X-Key: ${secret}`,
      error: new Error(`upstream said ${secret}`),
      nested: { deeper: [secret] },
    });
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]).not.toContain(secret);
    expect(out.lines[0]).not.toContain(escaped);
    expect(out.lines[0]).not.toContain('s3cr');
    expect(JSON.parse(out.lines[0])).toMatchObject({
      msg: 'refused [redacted]',
      header: 'X-Key: [redacted]',
      error: 'upstream said [redacted]',
      nested: { deeper: ['[redacted]'] },
    });
  });

  it('scrubs a JWT and drops secret-bearing keys, as the gateway does', () => {
    const out = sink();
    const log = createLogger(out, 'info', []);
    log.warn(`refused Bearer ${TOKEN}`, {
      error: new Error(`bad token ${TOKEN}`),
      token: TOKEN,
      authorization: 'x',
    });
    const rec = JSON.parse(out.lines[0]);
    expect(out.lines[0]).not.toContain(TOKEN.split('.')[2]);
    expect(rec).toMatchObject({ msg: 'refused Bearer [redacted]', error: 'bad token [redacted]' });
    expect(rec).not.toHaveProperty('token');
    expect(rec).not.toHaveProperty('authorization');
  });

  it('clips a huge field and replaces a line over 16 KiB with a short truncated record', () => {
    const out = sink();
    const log = createLogger(out, 'info', ['s3cr3t']);
    log.info('long', { body: 'y'.repeat(100_000) });
    const clipped = JSON.parse(out.lines[0]);
    expect(clipped.body).toBe(`${'y'.repeat(2000)}…(100000 chars)`);
    expect(clipped.msg).toBe('long');

    const many = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`f${i}`, `s3cr3t ${'z'.repeat(1990)}`]),
    );
    log.warn('many fields s3cr3t', many);
    expect(out.lines[1].length).toBeLessThan(16 * 1024);
    const capped = JSON.parse(out.lines[1]);
    expect(capped).toEqual({
      level: 'warn',
      time: expect.any(Number),
      service: 'hookgate-bridge',
      msg: 'many fields [redacted]',
      truncated: true,
    });
    log.error('m'.repeat(50_000));
    expect(out.lines[2].length).toBeLessThan(16 * 1024);
    expect(JSON.parse(out.lines[2]).msg).toBe(`${'m'.repeat(2000)}…(50000 chars)`);
  });

  it('keeps going when the sink throws (stderr gone)', () => {
    const log = createLogger(
      {
        write() {
          throw new Error('EPIPE');
        },
      },
      'info',
      [],
    );
    expect(() => log.error('still fine')).not.toThrow();
  });
});

describe('the bridge log on the process stderr', () => {
  function spawnLogger(lines: number, end: 'exit' | 'kill') {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/bridge/fixtures/log-then-exit.ts', String(lines), end],
      { cwd: ROOT, env: { ...process.env, HOOKGATE_TOKEN: TOKEN }, stdio: ['pipe', 'pipe', 'pipe', 'ipc'] },
    );
    const { stdout, stderr } = child;
    if (!stdout || !stderr) throw new Error('spawned without pipes');
    const out = { stdout: '', stderr: '' };
    stdout.on('data', (c: Buffer) => {
      out.stdout += c.toString();
    });
    stderr.on('data', (c: Buffer) => {
      out.stderr += c.toString();
    });
    const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    return { child, stderr, out, closed };
  }

  function expectAllLines(out: { stdout: string; stderr: string }, lines: number): void {
    expect(out.stdout).toBe('');
    const records = out.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(lines + 1);
    expect(records.at(-1)).toMatchObject({
      level: 'error',
      service: 'hookgate-bridge',
      msg: 'fatal: giving up',
      error: 'the gateway refused [redacted]',
    });
    expect(out.stderr).not.toContain(TOKEN.split('.')[2]);
  }

  it('writes only to stderr, every line out before an immediate exit, even while stderr is not read', async () => {
    const lines = 300; // ~300 KB: more than a pipe holds while the reader waits
    const { stderr, out, closed } = spawnLogger(lines, 'exit');
    stderr.pause();
    // Not read: once our buffer holds its high-water mark we stop reading the pipe, so the rest of the
    // ~300 KB has to wait in the pipe (64 KiB) while the bridge logs and exits.
    await expect.poll(() => stderr.readableLength).toBeGreaterThanOrEqual(stderr.readableHighWaterMark);
    stderr.resume();
    expect(await closed).toBe(3);
    expectAllLines(out, lines);
  }, 30_000);

  it('has every line in the pipe once the log call returns: a SIGKILL right after loses none', async () => {
    const lines = 300;
    const { child, out, closed } = spawnLogger(lines, 'kill');
    await new Promise((resolve) => child.once('message', resolve));
    child.kill('SIGKILL');
    await closed;
    expectAllLines(out, lines);
  }, 30_000);
});
