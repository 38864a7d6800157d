import { defineWebSocketHelper, type UpgradeWebSocket, WSContext, type WSReadyState } from 'hono/ws';
import { CloseCode } from '../lib/close-codes.js';
import { WS_PROTOCOL } from '../server/auth.js';

/**
 * The WebSocket upgrade for workerd, in the shape of hono's helpers.
 *
 * hono's own `upgradeWebSocket` from `hono/cloudflare-workers` (4.13) is not enough for the
 * gateway: it never calls `onOpen` (where the app creates the session), it answers without a
 * `Sec-WebSocket-Protocol` header (a client that offered `hookgate.v1, bearer.<token>` then fails
 * the handshake), and it matches `Upgrade: websocket` case-sensitively. This one accepts the
 * server end, calls `onOpen` before the 101 goes out, and selects `hookgate.v1` when the client
 * offered it; the `bearer.<token>` entry is never echoed.
 */
export const upgradeWebSocket: UpgradeWebSocket<WebSocket> = defineWebSocketHelper<WebSocket>((c, events) => {
  if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') return;
  const offered = (c.req.header('sec-websocket-protocol') ?? '').split(',').map((p) => p.trim());
  const protocol = offered.includes(WS_PROTOCOL) ? WS_PROTOCOL : null;

  const pair = new WebSocketPair();
  const client = pair[0];
  const server = pair[1];
  const ws = new WSContext<WebSocket>({
    send: (data) => server.send(data),
    close: (code, reason) => server.close(code, reason),
    raw: server,
    get readyState() {
      return server.readyState as WSReadyState;
    },
    url: c.req.url,
    protocol,
  });
  let closed = false;
  const onClose = (evt: CloseEvent) => {
    if (closed) return;
    closed = true;
    events.onClose?.(evt, ws);
  };
  server.addEventListener('message', (evt) => events.onMessage?.(evt, ws));
  server.addEventListener('close', (evt) => {
    onClose(evt);
    // Complete the closing handshake (newer compatibility dates do it automatically).
    try {
      // 1005 (no code) and 1006 (no close frame) are never sent; answer those with a normal close.
      server.close(evt.code === 1005 || evt.code === 1006 ? CloseCode.Normal : evt.code, evt.reason);
    } catch {
      // already closed
    }
  });
  server.addEventListener('error', (evt) => {
    events.onError?.(evt, ws);
    onClose(new CloseEvent('close', { code: 1006, reason: 'socket error' }));
  });
  server.accept();
  events.onOpen?.(new Event('open'), ws);

  const headers = new Headers();
  if (protocol) headers.set('sec-websocket-protocol', protocol);
  return new Response(null, { status: 101, webSocket: client, headers });
});
