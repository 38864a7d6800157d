import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/**
 * A stand-in for the hookgate server, just enough of its wire contract for the bridge: the hook's
 * WebSocket and HTTP endpoints, bearer auth at the upgrade and per POST, and knobs to kill, restart,
 * stall or misbehave. Answers come from a handler the test supplies.
 */

export const HOOK_PATH = '/v1/tenants/acme/hooks/weather';

export interface GatewayRequest {
  id: number | string;
  method: string;
  params: unknown;
  via: 'ws' | 'http';
}

export type GatewayReply =
  | { result: unknown }
  | { error: { code: number; message: string } }
  /** ws: sent as they are; http: the first one with the request's id is the body, else no answer. */
  | { frames: Record<string, unknown>[] }
  | { hang: true }
  | { close: { code: number; reason: string } };

export type GatewayHandler = (req: GatewayRequest) => GatewayReply | Promise<GatewayReply>;

export interface GatewayOptions {
  token: string;
  /** false: an HTTP-only server; an upgrade request is answered 404 like any unknown GET. */
  websocket?: boolean;
  handler: GatewayHandler;
  /** Delay before a notification POST gets its 202 (a slow gateway). */
  notifyDelayMs?: number;
}

export interface Seen {
  method: string;
  params: unknown;
  via: 'ws' | 'http';
}

export class TestGateway {
  readonly calls: Seen[] = [];
  readonly events: Seen[] = [];
  readonly authHeaders: string[] = [];
  readonly urls: string[] = [];
  readonly closeCodes: number[] = [];
  upgrades = 0;
  connections = 0;
  handler: GatewayHandler;
  /** The token accepted; change it to make the gateway refuse the bridge's from now on. */
  token: string;
  /** Set: WebSocket upgrades are answered with this status (an overloaded gateway: 503). */
  refuseUpgrades?: number;
  private server?: Server;
  private wss?: WebSocketServer;
  private readonly sockets = new Set<Socket>();
  private readonly clients = new Set<WebSocket>();
  port = 0;

  constructor(private readonly options: GatewayOptions) {
    this.handler = options.handler;
    this.token = options.token;
  }

  static async start(options: GatewayOptions): Promise<TestGateway> {
    const gw = new TestGateway(options);
    await gw.listen(0);
    return gw;
  }

  get wsUrl(): string {
    return `ws://127.0.0.1:${this.port}${HOOK_PATH}/ws`;
  }

  async listen(port: number): Promise<void> {
    const server = createServer((req, res) => void this.onHttp(req, res));
    this.server = server;
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    if (this.options.websocket !== false) {
      const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
      this.wss = wss;
      server.on('upgrade', (req, socket, head) => {
        this.upgrades++;
        this.record(req);
        const refusal = this.refuseUpgrades
          ? { status: this.refuseUpgrades, body: '{"error":{"code":"unavailable","message":"busy"}}' }
          : this.refuse(req);
        if (refusal) {
          socket.end(
            `HTTP/1.1 ${refusal.status} Refused\r\nContent-Type: application/json\r\n` +
              `WWW-Authenticate: Bearer\r\nContent-Length: ${Buffer.byteLength(refusal.body)}\r\n` +
              `Connection: close\r\n\r\n${refusal.body}`,
          );
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws));
      });
    }
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
  }

  /** Gone at once, mid-call: sockets cut, nothing answered. */
  async kill(): Promise<void> {
    for (const c of this.clients) c.terminate();
    for (const s of this.sockets) s.destroy();
    this.wss?.close();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  async restart(): Promise<void> {
    await this.listen(this.port);
  }

  /** Stops reading every WebSocket (a gateway too slow to keep up), or resumes. */
  stall(on: boolean): void {
    for (const s of this.sockets) {
      if (on) s.pause();
      else s.resume();
    }
  }

  closeAll(code: number, reason: string): void {
    for (const c of this.clients) c.close(code, reason);
  }

  private record(req: IncomingMessage): void {
    this.authHeaders.push(req.headers.authorization ?? '');
    this.urls.push(req.url ?? '');
  }

  private refuse(req: IncomingMessage): { status: number; body: string } | undefined {
    if (req.headers.authorization === `Bearer ${this.token}`) return undefined;
    return {
      status: 401,
      body: JSON.stringify({ error: { code: 'invalid_token', message: 'token signature invalid' } }),
    };
  }

  private onSocket(ws: WebSocket): void {
    this.connections++;
    this.clients.add(ws);
    ws.on('close', (code) => {
      this.clients.delete(ws);
      this.closeCodes.push(code);
    });
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as Record<string, any>;
      if (msg.id === undefined) {
        this.events.push({ method: msg.method, params: msg.params, via: 'ws' });
        return;
      }
      void this.dispatch({ id: msg.id, method: msg.method, params: msg.params, via: 'ws' }).then((reply) => {
        if ('close' in reply) ws.close(reply.close.code, reply.close.reason);
        else if ('frames' in reply) for (const f of reply.frames) ws.send(JSON.stringify(f));
        else if (!('hang' in reply)) ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...reply }));
      });
    });
  }

  private async onHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.record(req);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== HOOK_PATH) {
      json(404, { error: { code: 'not_found', message: `no route ${req.method} ${req.url}` } });
      return;
    }
    const refusal = this.refuse(req);
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end(refusal.body);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>;
    if (msg.id === undefined) {
      this.events.push({ method: msg.method, params: msg.params, via: 'http' });
      if (this.options.notifyDelayMs) await new Promise((r) => setTimeout(r, this.options.notifyDelayMs));
      res.writeHead(202).end();
      return;
    }
    const reply = await this.dispatch({ id: msg.id, method: msg.method, params: msg.params, via: 'http' });
    if ('frames' in reply) {
      const own = reply.frames.find((f) => f.id === msg.id);
      if (own) json(200, own);
    } else if ('result' in reply || 'error' in reply) {
      json(200, { jsonrpc: '2.0', id: msg.id, ...reply });
    }
    // hang / close: no answer; the bridge's deadline (or kill()) ends the request.
  }

  private async dispatch(req: GatewayRequest): Promise<GatewayReply> {
    if (req.method === 'hook.hello') {
      return {
        result: { ok: true, name: 'weather', version: 1, modes: ['tool', 'approve'], tools: ['get_weather'] },
      };
    }
    this.calls.push({ method: req.method, params: req.params, via: req.via });
    return this.handler(req);
  }
}
