import {
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  isResponse,
  validateEnvelope,
} from '../protocol/jsonrpc.js';
import { findDuplicateKey } from '../lib/json-duplicate-keys.js';
import { keepAsUtf8 } from './lazy-params.js';
import { paramsTextOf, requestHead } from './params-text.js';
import { SENT, type Transport } from './transport.js';
import { utf8Length } from './utf8-length.js';
import { HookgateError } from '../lib/errors.js';

export type PeerErrorCode =
  | 'PEER_TIMEOUT'
  | 'PEER_CLOSED'
  | 'PEER_ERROR_REPLY'
  | 'PEER_SEND_FAILED'
  /** A reply this peer refuses to read (see refuseDuplicateKeys). */
  | 'PEER_BAD_REPLY';

export class PeerError extends HookgateError<PeerErrorCode> {
  readonly rpcError?: JsonRpcFailure['error'];
  constructor(code: PeerErrorCode, message: string, rpcError?: JsonRpcFailure['error']) {
    super(code, message);
    this.name = 'PeerError';
    this.rpcError = rpcError;
  }
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: PeerError): void;
  timer: ReturnType<typeof setTimeout>;
}

/** A request already serialised by whoever made it (the bridge's host), sent as it is. */
export interface ForwardedRequest {
  id: JsonRpcId;
  /** A JSON-RPC 2.0 request whose id is `id`. */
  text: string;
}

/**
 * A transport that also takes a message as one NDJSON line already in UTF-8 (the stdio backend). A
 * request made of the params text as received is then encoded from its pieces and never joined
 * into one string: writing the joined string flattened it first, a 64 KiB copy on the JS heap per
 * large call, a quarter of what such a call allocated there.
 */
export interface LineTransport extends Transport {
  /** `line`: one message and its newline. */
  sendLine(line: Uint8Array, timeoutMs?: number): Promise<void>;
}

function takesLines(transport: Transport): transport is LineTransport {
  return typeof (transport as Partial<LineTransport>).sendLine === 'function';
}

export interface PeerOptions {
  /**
   * Own ids become strings `${idPrefix}1`, `${idPrefix}2`, … so that forwarded requests can keep
   * their senders' ids without colliding with ours.
   */
  idPrefix?: string;
  /** Called for messages that are not responses to our calls (requests, notifications, strays). */
  onrequest?: (message: JsonRpcMessage) => void;
  /** Called for lines that are not JSON-RPC, or responses to ids we do not know. */
  onstray?: (text: string, why: string) => void;
  /**
   * Fail a call whose reply spells a key twice in one object (PEER_BAD_REPLY). JSON.parse keeps one
   * of them and loses the order Go's decoder applies them in, so such a reply cannot be read the
   * way PicoClaw would read it.
   */
  refuseDuplicateKeys?: boolean;
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

  /**
   * Calls `method`. With `forwarded`, its text goes out unchanged under its own id (no second
   * serialisation of a large request) unless that id is in use or looks like one of ours; then the
   * call gets an id of ours like any other.
   */
  call(method: string, params: unknown, timeoutMs: number, forwarded?: ForwardedRequest): Promise<unknown> {
    if (this.closed) return Promise.reject(new PeerError('PEER_CLOSED', 'transport closed'));
    let id: JsonRpcId;
    let text: string | Uint8Array;
    if (forwarded && this.canForward(forwarded.id)) {
      id = forwarded.id;
      text = forwarded.text;
    } else {
      const n = this.nextId++;
      id = this.options.idPrefix === undefined ? n : `${this.options.idPrefix}${n}`;
      text = requestText(id, method, params, takesLines(this.transport));
    }
    const answered = this.expect(id, method, timeoutMs);
    // The text is sent from here and from no closure: a closure that mentioned it would keep it
    // (and the received message its params were cut from) alive in this call's context until the
    // answer, ~130 KiB per 64 KiB call in flight, which the young-generation collector copied and
    // promoted at every scavenge.
    let sent: Promise<void>;
    try {
      sent =
        typeof text === 'string'
          ? this.transport.send(text, timeoutMs)
          : (this.transport as LineTransport).sendLine(text, timeoutMs);
    } catch (err) {
      // A transport that throws instead of rejecting fails the call the same way.
      sent = Promise.reject(err);
    }
    if (sent !== SENT) this.failIfUnsent(id, sent);
    return answered;
  }

  /** The pending call `id`: answered by receive, failed at its deadline. */
  private expect(id: JsonRpcId, method: string, timeoutMs: number): Promise<unknown> {
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new PeerError('PEER_TIMEOUT', `${method} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
    });
  }

  private failIfUnsent(id: JsonRpcId, sent: Promise<void>): void {
    sent.catch((err: unknown) => {
      this.settle(id)?.reject(
        new PeerError('PEER_SEND_FAILED', err instanceof Error ? err.message : String(err)),
      );
    });
  }

  /** Takes the pending call `id` out (its deadline cleared), if it is still waiting. */
  private settle(id: JsonRpcId): Pending | undefined {
    const p = this.pending.get(id);
    if (!p) return undefined;
    clearTimeout(p.timer);
    this.pending.delete(id);
    return p;
  }

  private canForward(id: JsonRpcId): boolean {
    if (this.pending.has(id)) return false;
    const prefix = this.options.idPrefix;
    // Without a prefix our ids are the numbers 1, 2, …: a sender's number could be one of them.
    if (prefix === undefined) return false;
    return typeof id !== 'string' || !id.startsWith(prefix);
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
    // PicoClaw takes a reply without "jsonrpc"; so do we (ids must still match exactly).
    const parsed = validateEnvelope(value, { lenientResponses: true });
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
    const repeated = this.options.refuseDuplicateKeys ? findDuplicateKey(text) : undefined;
    if (repeated !== undefined) {
      p.reject(new PeerError('PEER_BAD_REPLY', `reply repeats the key ${JSON.stringify(repeated)}`));
    } else if (Object.hasOwn(msg, 'error')) {
      const error = (msg as JsonRpcFailure).error;
      p.reject(new PeerError('PEER_ERROR_REPLY', error.message, error));
    } else {
      p.resolve((msg as { result?: unknown }).result);
    }
  }
}

/**
 * A request as JSON text: the params as they were received when nothing changed them (see
 * params-text.ts), else serialised; either way the same members in the same order. With `asLine`,
 * a request of received params comes as its NDJSON line in UTF-8 (see LineTransport).
 */
function requestText(id: JsonRpcId, method: string, params: unknown, asLine = false): string | Uint8Array {
  const received = paramsTextOf(params);
  if (received === undefined) return JSON.stringify({ jsonrpc: '2.0', id, method, params });
  const head = requestHead(id, method);
  const line = asLine ? utf8Line(head, received) : undefined;
  if (line === undefined) return `${head}${received}}`;
  // The line holds the params in UTF-8 now: the call need not keep the received text alive as well.
  keepAsUtf8(params, received, line.subarray(utf8Length(head), line.length - 2));
  return line;
}

const encoder = new TextEncoder();
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;

/**
 * `head`, `body`, `}` and a newline as UTF-8, each encoded straight into one array (`body` is a
 * slice of the received message, which the encoder reads without copying it). Undefined if the
 * encoder wrote other than the counted bytes, which it should not.
 */
function utf8Line(head: string, body: string): Uint8Array | undefined {
  const headBytes = utf8Length(head);
  const bodyBytes = utf8Length(body);
  const line = new Uint8Array(headBytes + bodyBytes + 2);
  if (encoder.encodeInto(head, line).written !== headBytes) return undefined;
  if (encoder.encodeInto(body, line.subarray(headBytes)).written !== bodyBytes) return undefined;
  line[headBytes + bodyBytes] = CLOSE_BRACE;
  line[headBytes + bodyBytes + 1] = NEWLINE;
  return line;
}
