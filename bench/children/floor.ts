/**
 * The floors: the least a server can do for one JSON-RPC hook call over each transport: read the
 * message, JSON.parse it, answer what the weather hook answers (a canned result) with
 * JSON.stringify. No auth, no policy, no hook code.
 *
 *   argv[2]: ws | http | hono
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { WebSocketServer } from 'ws';
import { announceReady, commonHandlers, serveIpc } from '../lib/ipc.js';
import { ANSWER } from '../lib/messages.js';

const kind = process.argv[2];
const MAX_BODY = 8 * 1024 * 1024;

function answer(text: string): string {
  const m = JSON.parse(text) as { id: number; method: string };
  return JSON.stringify({
    jsonrpc: '2.0',
    id: m.id,
    result: m.method === 'hook.before_tool' ? ANSWER.small : ANSWER.large,
  });
}

let port = 0;
let close: () => void = () => {};
let connections: () => number = () => 0;

if (kind === 'ws') {
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    perMessageDeflate: false,
    maxPayload: MAX_BODY,
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => {
      if (!isBinary) ws.send(answer(data.toString()));
    });
  });
  port = (wss.address() as AddressInfo).port;
  close = () => wss.close();
  connections = () => wss.clients.size;
} else if (kind === 'http') {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = answer(Buffer.concat(chunks).toString());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  close = () => server.close();
} else if (kind === 'hono') {
  const app = new Hono();
  app.post('/v1/tenants/:tenant/hooks/:hook', async (c) => {
    const m = (await c.req.json()) as { id: number; method: string };
    return c.json({
      jsonrpc: '2.0',
      id: m.id,
      result: m.method === 'hook.before_tool' ? ANSWER.small : ANSWER.large,
    });
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  port = (server.address() as AddressInfo).port;
  close = () => server.close();
} else {
  throw new Error(`unknown floor ${kind}`);
}

serveIpc({
  ...commonHandlers(),
  sessions: () => connections(),
  stop: () => {
    close();
    setImmediate(() => process.exit(0));
    return true;
  },
});
announceReady({ url: `http://127.0.0.1:${port}`, port, pid: process.pid });
