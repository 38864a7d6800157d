import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { describeErrorBody, UpstreamError } from './upstream.js';

export type ConnectOutcome = { ok: true; ws: WebSocket } | { ok: false; error: UpstreamError };

/** Largest frame accepted from the gateway; a bigger answer becomes a neutral one, not a dead socket. */
const MAX_INCOMING_BYTES = 64 * 1024 * 1024;
const MAX_ERROR_BODY = 4096;

/**
 * One WebSocket opening attempt with the token in the Authorization header (never in the URL) and
 * redirects off, so the token cannot be sent to another host. A refused upgrade is read for its
 * status and `{"error":{"code","message"}}` body, so the log can say why.
 */
export class WsConnector {
  private current?: WebSocket;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly handshakeTimeoutMs: number,
  ) {}

  open(): Promise<ConnectOutcome> {
    return new Promise<ConnectOutcome>((resolve) => {
      let settled = false;
      const settle = (outcome: ConnectOutcome): void => {
        if (settled) return;
        settled = true;
        this.current = undefined;
        resolve(outcome);
      };
      let ws: WebSocket;
      try {
        ws = new WebSocket(this.url, {
          headers: { Authorization: `Bearer ${this.token}` },
          handshakeTimeout: this.handshakeTimeoutMs,
          maxPayload: MAX_INCOMING_BYTES,
          followRedirects: false,
        });
      } catch (err) {
        settle({ ok: false, error: new UpstreamError('UPSTREAM_UNAVAILABLE', errorText(err)) });
        return;
      }
      this.current = ws;
      ws.once('open', () => settle({ ok: true, ws }));
      ws.on('unexpected-response', (_req, res) => {
        readBody(res).then((body) => {
          settle({ ok: false, error: refusal(res.statusCode ?? 0, body) });
          ws.terminate();
        });
      });
      ws.on('error', (err) => {
        settle({
          ok: false,
          error: new UpstreamError('UPSTREAM_UNAVAILABLE', `gateway unreachable: ${errorText(err)}`),
        });
      });
      ws.once('close', () => {
        settle({
          ok: false,
          error: new UpstreamError('UPSTREAM_UNAVAILABLE', 'connection closed while opening'),
        });
      });
    });
  }

  /** Gives up on an attempt under way (the bridge is stopping). */
  abort(): void {
    this.current?.terminate();
  }
}

function refusal(status: number, body: string): UpstreamError {
  const why = describeErrorBody(status, body);
  if (status === 401 || status === 403) {
    return new UpstreamError('UPSTREAM_AUTH', `gateway refused the token: ${why}`);
  }
  // Overloaded or restarting: worth retrying the WebSocket, not a sign it does not exist.
  if (status >= 500 || status === 429 || status === 408) {
    return new UpstreamError('UPSTREAM_UNAVAILABLE', `gateway unavailable: ${why}`);
  }
  return new UpstreamError('UPSTREAM_NO_WEBSOCKET', `WebSocket upgrade refused: ${why}`);
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (): void => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    // A refusal body is a few hundred bytes; never wait long or hold much for it.
    const timer = setTimeout(() => {
      res.destroy();
      finish();
    }, 2000);
    res.on('data', (chunk: Buffer) => {
      if (size < MAX_ERROR_BODY) chunks.push(chunk.subarray(0, MAX_ERROR_BODY - size));
      size += chunk.length;
      if (size >= MAX_ERROR_BODY) {
        res.destroy();
        finish();
      }
    });
    res.once('end', finish);
    res.once('error', finish);
    res.once('close', finish);
  });
}

export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message;
}
