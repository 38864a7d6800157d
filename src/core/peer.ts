import {
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  isResponse,
  validateEnvelope,
} from '../protocol/jsonrpc.js';
import type { Transport } from './transport.js';

export type PeerErrorCode = 'PEER_TIMEOUT' | 'PEER_CLOSED' | 'PEER_ERROR_REPLY' | 'PEER_SEND_FAILED';

export class PeerError extends Error {
  readonly code: PeerErrorCode;
  readonly rpcError?: JsonRpcFailure['error'];
  constructor(code: PeerErrorCode, message: string, rpcError?: JsonRpcFailure['error']) {
    super(message);
    this.name = 'PeerError';
    this.code = code;
    this.rpcError = rpcError;
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: PeerError): void;
  timer: ReturnType<typeof setTimeout>;
}

export interface PeerOptions {
  /** Called for messages that are not responses to our calls (requests, notifications, strays). */
  onrequest?: (message: JsonRpcMessage) => void;
  /** Called for lines that are not JSON-RPC, or responses to ids we do not know. */
  onstray?: (text: string, why: string) => void;
}

/**
 * The calling side of JSON-RPC over a Transport: allocates integer ids (1, 2, …, as PicoClaw does),
 * keeps pending calls in a map, matches replies in any order and enforces a deadline per call.
 * A reply after its deadline is dropped, like PicoClaw's removePending.
 */
export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<JsonRpcId, Pending>();
  private closed = false;

  constructor(
    private readonly transport: Transport,
    private readonly options: PeerOptions = {},
  ) {
    transport.onmessage = (text) => this.receive(text);
    transport.onclose = (reason) => this.failAll(new PeerError('PEER_CLOSED', reason ?? 'transport closed'));
  }

  get inFlight(): number {
    return this.pending.size;
  }

  call(method: string, params: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed) return Promise.reject(new PeerError('PEER_CLOSED', 'transport closed'));
    const id = this.nextId++;
    const text = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new PeerError('PEER_TIMEOUT', `${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.transport.send(text).catch((err: unknown) => {
        const p = this.pending.get(id);
        if (!p) return;
        clearTimeout(p.timer);
        this.pending.delete(id);
        reject(new PeerError('PEER_SEND_FAILED', err instanceof Error ? err.message : String(err)));
      });
    });
  }

  notify(method: string, params: unknown): Promise<void> {
    if (this.closed) return Promise.resolve();
    return this.transport.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  /** Fails every pending call (e.g. the process exited) and refuses new ones. */
  failAll(error: PeerError): void {
    this.closed = true;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(error);
    }
  }

  private receive(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.options.onstray?.(text, 'not JSON');
      return;
    }
    const parsed = validateEnvelope(value);
    if (!parsed.ok) {
      this.options.onstray?.(text, parsed.response.error.message);
      return;
    }
    const msg = parsed.message;
    if (!isResponse(msg)) {
      this.options.onrequest?.(msg);
      return;
    }
    const p = msg.id === null ? undefined : this.pending.get(msg.id);
    if (!p) {
      this.options.onstray?.(text, 'response to an unknown id');
      return;
    }
    clearTimeout(p.timer);
    this.pending.delete(msg.id as JsonRpcId);
    if ('error' in msg) {
      p.reject(new PeerError('PEER_ERROR_REPLY', msg.error.message, msg.error));
    } else {
      p.resolve(msg.result);
    }
  }
}
