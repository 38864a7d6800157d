import type { IncomingMessage, Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  defineWebSocketHelper,
  type UpgradeWebSocket,
  type WSEvents,
  WSContext,
  type WSReadyState,
} from 'hono/ws';
import type { WebSocket, WebSocketServer } from 'ws';
import { sendCoalesced } from './coalesce-writes.js';

/** What the app's route leaves in the upgrade's env when it accepts: the events of the new socket. */
const ACCEPTED = Symbol('hookgate.ws.accepted');

interface UpgradeEnv {
  incoming?: IncomingMessage;
  [ACCEPTED]?: WSEvents<WebSocket>;
}

type Fetch = (request: Request, env: UpgradeEnv) => Response | Promise<Response>;

/**
 * WebSocket upgrades on Node, in the shape of hono's helpers, with `ws` underneath.
 *
 * @hono/node-server's helper builds a web `MessageEvent` and copies the frame's bytes for every
 * message, and keeps the upgrade's context (URL objects, listeners) for the socket's lifetime. On
 * the gateway's hot path that is most of what a WebSocket call costs beyond the floor. Here the app
 * still authenticates the upgrade as an ordinary request (`app.fetch`), and an accepted socket
 * hands each text frame to `onMessage` as `{ data: string }`, decoded once.
 */
export const upgradeWebSocket: UpgradeWebSocket<WebSocket> = defineWebSocketHelper<WebSocket>((c, events) => {
  const env = c.env as UpgradeEnv | undefined;
  if (!env?.incoming || c.req.header('upgrade')?.toLowerCase() !== 'websocket') return;
  env[ACCEPTED] = events;
  // Never sent: the upgrade listener sees ACCEPTED and lets `ws` write the 101.
  return new Response(null, { status: 200 });
});

/**
 * Routes the server's `upgrade` requests through the app: a refusal (401, 403, 404, 426...) is
 * written as a plain HTTP response; an accepted upgrade is completed by `wss`.
 */
export function attachWebSocket(
  server: Server,
  wss: WebSocketServer,
  fetch: Fetch,
  onError: (err: unknown) => void,
): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', ignore);
    const env: UpgradeEnv = { incoming: req };
    const request = upgradeRequest(req);
    if (!request) {
      refuse(socket, 400, new Headers(), '');
      return;
    }
    Promise.resolve()
      .then(() => fetch(request, env))
      .then(async (response) => {
        const events = env[ACCEPTED];
        env.incoming = undefined;
        if (socket.destroyed) return;
        if (!events) {
          refuse(socket, response.status, response.headers, await response.text());
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          socket.off('error', ignore);
          wire(ws, events, onError);
        });
      })
      .catch((err: unknown) => {
        onError(err);
        if (!socket.destroyed) refuse(socket, 500, new Headers(), '');
      });
  });
}

function ignore(): void {}

/** The upgrade as a web Request for the app; undefined for a target or header no Request can carry. */
function upgradeRequest(req: IncomingMessage): Request | undefined {
  const target = req.url ?? '/';
  if (!target.startsWith('/')) return undefined;
  try {
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    return new Request(`http://${req.headers.host ?? 'localhost'}${target}`, { headers });
  } catch {
    return undefined;
  }
}

function refuse(socket: Duplex, status: number, headers: Headers, body: string): void {
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, 'Connection: close'];
  for (const [k, v] of headers) {
    if (k !== 'connection' && k !== 'content-length' && k !== 'transfer-encoding') lines.push(`${k}: ${v}`);
  }
  lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/**
 * What hono's WSContext wraps. A class rather than an object of arrow functions: one of these lives
 * as long as its connection, and methods on a prototype cost nothing per connection.
 */
class SocketInit {
  readonly protocol: string | null;
  constructor(readonly raw: WebSocket) {
    this.protocol = raw.protocol || null;
  }
  get readyState(): WSReadyState {
    return this.raw.readyState as WSReadyState;
  }
  /** Answers of one tick share a write (see sendCoalesced). */
  send(data: string | ArrayBuffer | Uint8Array): void {
    if (typeof data === 'string') sendCoalesced(this.raw, data);
    else this.raw.send(data);
  }
  close(code?: number, reason?: string): void {
    this.raw.close(code, reason);
  }
}

/** Hands a socket's frames and lifecycle to the route's events. */
function wire(ws: WebSocket, events: WSEvents<WebSocket>, onError: (err: unknown) => void): void {
  const ctx = new WSContext<WebSocket>(new SocketInit(ws));
  try {
    events.onOpen?.(new Event('open'), ctx);
  } catch (err) {
    onError(err);
  }
  // A text frame has been checked as UTF-8 by `ws`; decode it once. Binary frames pass as bytes.
  ws.on('message', (data: Buffer, isBinary: boolean) => {
    try {
      events.onMessage?.({ data: isBinary ? data : data.toString() } as unknown as MessageEvent, ctx);
    } catch (err) {
      onError(err);
    }
  });
  ws.on('close', (code: number, reason: Buffer) => {
    try {
      events.onClose?.(
        { code, reason: reason.toString(), wasClean: code !== 1006 } as unknown as CloseEvent,
        ctx,
      );
    } catch (err) {
      onError(err);
    }
  });
  ws.on('error', (error: Error) => {
    try {
      events.onError?.({ error } as unknown as Event, ctx);
    } catch (err) {
      onError(err);
    }
  });
}
