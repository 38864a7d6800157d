import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/**
 * Messages sent on a WebSocket in the same tick go out in one write: cork the socket at the first
 * send of a tick and uncork it on the next. With many calls in flight this replaces a syscall per
 * message by one per tick (the gateway's answers, the bridge's forwarded calls).
 */
export function coalesceWrites(ws: WebSocket): void {
  const socket = (ws as unknown as { _socket?: Socket })._socket;
  if (!socket) return;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  const send = ws.send;
  ws.send = function sendCoalesced(this: WebSocket, ...args: Parameters<WebSocket['send']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    return send.apply(this, args);
  } as WebSocket['send'];
}
