import type { Socket } from 'node:net';
import WebSocket from 'ws';
import type { Transport } from '../core/transport.js';
import { CloseCode, describeCloseCode } from '../lib/close-codes.js';
import { sendCoalesced } from '../node/coalesce-writes.js';

export interface WsClientHooks {
  /** Sees the close after the JsonRpcPeer (which owns `onclose`) has failed its pending calls. */
  ondisconnect: (code: number, reason: string) => void;
  /** A ping this often; no pong by the next one means the gateway is gone (or not reading). */
  pingIntervalMs: number;
  ondead: () => void;
}

/**
 * The client side of one open WebSocket as a Transport: one JSON-RPC message per text frame.
 * `send` settles when the frame has been handed to the socket, so a caller that waits on it (the
 * event forwarder) feels the gateway's backpressure instead of filling ws's buffer without bound.
 */
export class WsClientTransport implements Transport {
  onmessage?: (message: string) => void;
  onclose?: (reason?: string) => void;
  onerror?: (error: Error) => void;
  private closed = false;
  /** Inside batch(): the socket is corked, sends are written when it returns. */
  private batching = false;
  private readonly pingTimer: ReturnType<typeof setInterval>;

  constructor(
    private readonly ws: WebSocket,
    hooks: WsClientHooks,
  ) {
    this.pingTimer = keepAlive(ws, hooks.pingIntervalMs, hooks.ondead);
    ws.on('message', (data, isBinary) => {
      // The gateway speaks text frames only; a binary frame is not a message of this protocol.
      if (isBinary) return;
      this.onmessage?.(data.toString());
    });
    ws.on('error', (err) => this.onerror?.(err));
    ws.once('close', (code, reasonBuf) => {
      this.closed = true;
      clearInterval(this.pingTimer);
      const reason = reasonBuf.toString();
      this.onclose?.(describeClose(code, reason));
      hooks.ondisconnect(code, reason);
    });
  }

  async start(): Promise<void> {}

  send(message: string): Promise<void> {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new Error('connection to the gateway is not open'));
    }
    return new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => (err ? reject(err) : resolve());
      // Lines PicoClaw wrote together (many calls in flight) go to the gateway in one write: those
      // of one stdin chunk by batch(), anything else by the socket's cork until the next tick.
      if (this.batching) this.ws.send(message, done);
      else sendCoalesced(this.ws, message, done);
    });
  }

  /**
   * Runs `fn` with the socket corked and uncorks it when `fn` returns: what `fn` sends leaves in
   * one write at once, without a tick's wait or bookkeeping (a call at a time is one line per chunk).
   */
  batch(fn: () => void): void {
    const socket = (this.ws as unknown as { _socket?: Socket })._socket;
    if (this.batching || this.closed || !socket) {
      fn();
      return;
    }
    socket.cork();
    this.batching = true;
    try {
      fn();
    } finally {
      this.batching = false;
      socket.uncork();
    }
  }

  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  /** Closes politely, then for good: a gateway that never answers the close must not hold us. */
  close(graceMs = 1000): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.ws.terminate();
        resolve();
      }, graceMs);
      this.ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      this.ws.close(CloseCode.Normal, 'bridge stopping');
    });
  }
}

/**
 * A dead or stalled gateway keeps a TCP connection that never closes by itself; without pings the
 * bridge would hold it (and the events written into it) forever. Terminating fails its calls at once.
 */
function keepAlive(ws: WebSocket, intervalMs: number, ondead: () => void): ReturnType<typeof setInterval> {
  let awaitingPong = false;
  ws.on('pong', () => {
    awaitingPong = false;
  });
  return setInterval(() => {
    if (awaitingPong) {
      ondead();
      ws.terminate();
      return;
    }
    awaitingPong = true;
    ws.ping();
  }, intervalMs);
}

/** A close code in words, for the failure reason PicoClaw logs and the bridge's own log. */
export function describeClose(code: number, reason: string): string {
  const words = describeCloseCode(code);
  return reason ? `${words} (${code} ${reason})` : `${words} (${code})`;
}
