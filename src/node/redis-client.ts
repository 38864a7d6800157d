import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { HookgateError } from '../lib/errors.js';

/** A RESP2 reply: simple and bulk strings, integers, nil, arrays. Error replies reject. */
export type RespValue = string | number | null | RespValue[];

/** An error reply from Redis (`-ERR …`); its text is the message. */
export class RedisReplyError extends HookgateError<'REDIS_ERROR_REPLY'> {
  constructor(message: string) {
    super('REDIS_ERROR_REPLY', message);
    this.name = 'RedisReplyError';
  }
}

interface Pending {
  resolve(value: RespValue): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

const CRLF = Buffer.from('\r\n');

/**
 * A minimal Redis client: one connection, commands pipelined in order, RESP2 replies. Just what the
 * shared limiter needs (EVALSHA, SCRIPT LOAD, ZREM, AUTH, SELECT), with the one property that
 * matters on the call path: every command settles within `timeoutMs`, connected or not. There is
 * no offline queue and no retry here: a timeout or a lost connection rejects every pending command
 * and drops the socket; the next command connects again (the caller decides how often to try).
 *
 * The URL is `redis://[user:password@]host[:port][/db]`, or `rediss://` for TLS. Errors never
 * quote it (it may carry a password).
 */
export class RedisClient {
  private socket?: Socket;
  private pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private closed = false;
  private readonly target: URL;

  constructor(
    url: string,
    private readonly timeoutMs: number,
  ) {
    this.target = new URL(url);
  }

  command(args: readonly (string | number)[]): Promise<RespValue> {
    if (this.closed) return Promise.reject(new Error('redis client closed'));
    const socket = this.socket ?? this.open();
    return this.send(socket, args);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.fail(new Error('redis client closed'));
  }

  private send(socket: Socket, args: readonly (string | number)[]): Promise<RespValue> {
    return new Promise<RespValue>((resolve, reject) => {
      const timer = setTimeout(
        () => this.fail(new Error(`redis did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      timer.unref?.();
      this.pending.push({ resolve, reject, timer });
      socket.write(encode(args));
    });
  }

  private open(): Socket {
    const { hostname, port, protocol, username, password, pathname } = this.target;
    const host = hostname.replace(/^\[|\]$/g, '');
    const options = { host, port: Number(port || 6379) };
    const socket =
      protocol === 'rediss:' ? tlsConnect({ ...options, servername: host }) : netConnect(options);
    socket.setNoDelay(true);
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => this.onData(socket, chunk));
    socket.on('error', (err) => this.dropped(socket, err));
    socket.on('close', () => this.dropped(socket, new Error('redis connection closed')));
    // The handshake goes first on the wire; a failure drops the connection and every command on it.
    const handshake: (string | number)[][] = [];
    if (password) {
      const user = decodeURIComponent(username);
      handshake.push(
        user ? ['AUTH', user, decodeURIComponent(password)] : ['AUTH', decodeURIComponent(password)],
      );
    }
    const db = pathname.replace(/^\//, '');
    if (db && db !== '0') handshake.push(['SELECT', db]);
    for (const cmd of handshake) {
      this.send(socket, cmd).catch((err: Error) =>
        this.fail(new Error(`redis ${String(cmd[0]).toLowerCase()} failed: ${err.message}`)),
      );
    }
    return socket;
  }

  private dropped(socket: Socket, err: Error): void {
    if (this.socket === socket) this.fail(new Error(`redis unreachable: ${describe(err)}`));
  }

  /** Rejects everything pending and forgets the connection. */
  private fail(err: Error): void {
    const socket = this.socket;
    this.socket = undefined;
    socket?.destroy();
    const pending = this.pending;
    this.pending = [];
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(err);
    }
  }

  private onData(socket: Socket, chunk: Buffer): void {
    if (this.socket !== socket) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    let offset = 0;
    for (;;) {
      let parsed: Parsed | undefined;
      try {
        parsed = parse(this.buffer, offset);
      } catch (err) {
        this.fail(err as Error);
        return;
      }
      if (!parsed) break;
      offset = parsed.next;
      const p = this.pending.shift();
      if (!p) continue;
      clearTimeout(p.timer);
      if (parsed.value instanceof RedisReplyError) p.reject(parsed.value);
      else p.resolve(parsed.value);
    }
    this.buffer = offset === this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(offset);
  }
}

function describe(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code ?? err.message;
}

function encode(args: readonly (string | number)[]): Buffer {
  let out = `*${args.length}\r\n`;
  for (const a of args) {
    const s = String(a);
    out += `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  }
  return Buffer.from(out);
}

interface Parsed {
  value: RespValue | RedisReplyError;
  next: number;
}

/** One reply from `buf` at `offset`, or undefined when it has not fully arrived. */
function parse(buf: Buffer, offset: number): Parsed | undefined {
  if (offset >= buf.length) return undefined;
  const end = buf.indexOf(CRLF, offset);
  if (end < 0) return undefined;
  const type = String.fromCharCode(buf[offset]);
  const line = buf.toString('utf8', offset + 1, end);
  const next = end + 2;
  switch (type) {
    case '+':
      return { value: line, next };
    case '-':
      return { value: new RedisReplyError(line), next };
    case ':':
      return { value: Number(line), next };
    case '$': {
      const len = Number(line);
      if (len < 0) return { value: null, next };
      if (buf.length < next + len + 2) return undefined;
      return { value: buf.toString('utf8', next, next + len), next: next + len + 2 };
    }
    case '*': {
      const n = Number(line);
      if (n < 0) return { value: null, next };
      const items: RespValue[] = [];
      let at = next;
      for (let i = 0; i < n; i++) {
        const item = parse(buf, at);
        if (!item) return undefined;
        // An error inside an array (e.g. from EXEC) is kept as its message.
        items.push(item.value instanceof RedisReplyError ? item.value.message : item.value);
        at = item.next;
      }
      return { value: items, next: at };
    }
    default:
      throw new Error(`redis protocol error: unexpected reply type ${JSON.stringify(type)}`);
  }
}
