import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { attachWebSocket, upgradeWebSocket } from '../../src/node/websocket.js';

let server: Server | undefined;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

async function start(app: Hono, errors: unknown[] = []): Promise<string> {
  server = createServer((_req, res) => res.end());
  attachWebSocket(server, new WebSocketServer({ noServer: true }), app.fetch, (e) => errors.push(e));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function refusal(url: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    ws.on('open', () => reject(new Error('upgrade was accepted')));
    ws.on('error', () => {});
  });
}

describe('Node WebSocket upgrade', () => {
  it('writes the route’s refusal with its status, headers and body, and accepts nothing', async () => {
    const app = new Hono();
    app.get('/ws', (c) =>
      c.json({ error: { code: 'invalid_token' } }, 401, { 'www-authenticate': 'Bearer' }),
    );
    const res = await refusal(`${await start(app)}/ws`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'invalid_token' } });
  });

  it('answers 500 when the route throws, instead of leaving the socket hanging', async () => {
    const app = new Hono();
    app.get('/ws', () => {
      throw new Error('boom');
    });
    app.onError(() => {
      throw new Error('error handler failed too');
    });
    const errors: unknown[] = [];
    const res = await refusal(`${await start(app, errors)}/ws`);
    expect(res.status).toBe(500);
    expect(errors).toHaveLength(1);
  });

  it('hands text frames over as strings and binary frames as bytes; a throwing handler keeps the socket', async () => {
    const app = new Hono();
    const seen: unknown[] = [];
    app.get(
      '/ws',
      upgradeWebSocket(() => ({
        onMessage(evt, ws) {
          seen.push(evt.data);
          if (evt.data === 'throw') throw new Error('handler failed');
          ws.send(typeof evt.data === 'string' ? `echo:${evt.data}` : 'bytes');
        },
      })),
    );
    const errors: unknown[] = [];
    const ws = new WebSocket(`${await start(app, errors)}/ws`);
    const answers: string[] = [];
    ws.on('message', (d) => answers.push(d.toString()));
    await new Promise((r) => ws.once('open', r));
    ws.send('héllo');
    ws.send('throw');
    ws.send(Buffer.from([1, 2, 3]));
    ws.send('after');
    await expect.poll(() => answers).toEqual(['echo:héllo', 'bytes', 'echo:after']);
    expect(seen[0]).toBe('héllo');
    expect(Buffer.isBuffer(seen[2])).toBe(true);
    expect(errors).toHaveLength(1);
    ws.close();
  });
});

describe('Node WebSocket upgrade, malformed requests', () => {
  it('answers 400 to an upgrade whose target or Host cannot form a URL, and stays up', async () => {
    const { connect } = await import('node:net');
    const app = new Hono();
    app.get('/ws', (c) => c.text('reached'));
    const base = await start(app);
    const port = Number(new URL(base).port);
    const ask = (requestLine: string, host: string) =>
      new Promise<string>((resolve) => {
        const s = connect(port, '127.0.0.1', () =>
          s.write(
            `${requestLine}\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
              'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
          ),
        );
        let out = '';
        s.on('data', (d) => (out += d));
        s.on('close', () => resolve(out));
        s.on('error', () => resolve(out));
      });
    expect(await ask('GET http://elsewhere/ws HTTP/1.1', 'x')).toMatch(/^HTTP\/1\.1 400/);
    expect(await ask('GET /ws HTTP/1.1', 'bad host[')).toMatch(/^HTTP\/1\.1 400/);
    expect(await ask('GET /ws HTTP/1.1', '127.0.0.1')).toMatch(/^HTTP\/1\.1 200[\s\S]*reached$/);
  });
});
