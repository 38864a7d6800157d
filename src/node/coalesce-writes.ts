import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/** Sockets corked in this tick; all are uncorked together on the next one. */
const corked = new Set<Socket>();
let flushScheduled = false;

function uncorkAll(): void {
  flushScheduled = false;
  for (const socket of corked) socket.uncork();
  corked.clear();
}

/**
 * `ws.send`, with the messages sent on a socket in the same tick going out in one write: the socket
 * is corked at its first send of a tick and uncorked on the next. With many calls in flight this
 * replaces a syscall per message by one per tick (the gateway's answers, the bridge's forwarded
 * calls). One shared set and one nextTick per tick, not closures per connection: idle connections
 * are what a gateway holds most of.
 */
export function sendCoalesced(ws: WebSocket, data: string, cb?: (err?: Error) => void): void {
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  if (socket && !corked.has(socket)) {
    socket.cork();
    corked.add(socket);
    if (!flushScheduled) {
      flushScheduled = true;
      process.nextTick(uncorkAll);
    }
  }
  ws.send(data, cb);
}
