/**
 * An MCP client over Streamable HTTP for the load generator: raw HTTP/1.1 keep-alive POSTs of a
 * prebuilt `tools/call` body (only the id changes), the same code and bytes against every target,
 * so the client costs the same on both sides of a comparison. It does the `initialize` handshake
 * once (not measured) and carries `Mcp-Session-Id` when the server gives one (a stateful server,
 * e.g. supergateway `--stateful`); a stateless server (hookgate's MCP route) gives none. Answers may
 * come as `application/json` or as a `text/event-stream` whose `data:` lines carry the messages.
 * Every answer is checked against the weather tool's result text.
 */
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import type { Client } from './clients.js';
import { ANSWER } from './messages.js';

/** What `get_weather` answers for Berlin: the weather hook's `for_llm`, as MCP text content. */
export const MCP_EXPECTED_TEXT = (ANSWER.small as { result: { for_llm: string } }).result.for_llm;

const PROTOCOL_VERSION = '2025-11-25';
const CALL_HEAD = '{"jsonrpc":"2.0","id":';
const CALL_TAIL = ',"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Berlin"}}}';
const CALL_BASE_BYTES = Buffer.byteLength(CALL_HEAD + CALL_TAIL);

/** Bytes of one tools/call request body with a 6-digit id. */
export const MCP_CALL_BYTES = CALL_BASE_BYTES + 6;

let nextId = 500_000;

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The JSON-RPC messages of an answer: the body itself, or the `data:` lines of an SSE stream. */
export function messagesOf(contentType: string | undefined, text: string): unknown[] {
  if (contentType?.startsWith('text/event-stream')) {
    const out: unknown[] = [];
    // One event's data may span several `data:` lines (joined with \n); events end at a blank line.
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
      if (data.length > 0) out.push(JSON.parse(data.join('\n')));
    }
    return out;
  }
  const body = JSON.parse(text) as unknown;
  return Array.isArray(body) ? body : [body];
}

export class McpHttpClient implements Client {
  errors = 0;
  lastError?: string;
  private readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;
  private readonly path: string;
  /** Headers of every request after the handshake (session id and protocol version included). */
  private headers: Record<string, string> = {};
  private sessionId?: string;

  private constructor(
    readonly label: string,
    url: string,
    private readonly token: string | undefined,
    sockets: number,
  ) {
    const u = new URL(url);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.path = u.pathname;
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  }

  /** A client with `sockets` keep-alive connections, after `initialize` and `notifications/initialized`. */
  static async open(label: string, url: string, token: string | undefined, sockets: number) {
    const client = new McpHttpClient(label, url, token, sockets);
    await client.handshake();
    return client;
  }

  private baseHeaders(): Record<string, string> {
    const h: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    return h;
  }

  private async handshake(): Promise<void> {
    const init = await this.post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: { name: 'hookgate-bench', version: '1.0.0' },
        },
      }),
      this.baseHeaders(),
    );
    if (init.status !== 200)
      throw new Error(`${this.label}: initialize answered HTTP ${init.status}: ${init.text}`);
    const answer = messagesOf(init.headers['content-type'], init.text).find(
      (m) => (m as { id?: unknown }).id === 1,
    ) as { result?: { protocolVersion?: string } } | undefined;
    const version = answer?.result?.protocolVersion;
    if (!version)
      throw new Error(`${this.label}: initialize gave no protocol version: ${init.text.slice(0, 200)}`);
    const session = init.headers['mcp-session-id'];
    this.sessionId = typeof session === 'string' ? session : undefined;
    this.headers = { ...this.baseHeaders(), 'mcp-protocol-version': version };
    if (this.sessionId) this.headers['mcp-session-id'] = this.sessionId;
    const note = await this.post('{"jsonrpc":"2.0","method":"notifications/initialized"}', this.headers);
    if (note.status !== 202 && note.status !== 200) {
      throw new Error(`${this.label}: notifications/initialized answered HTTP ${note.status}: ${note.text}`);
    }
  }

  /** True when the server gave this client a session (a stateful server). */
  get stateful(): boolean {
    return this.sessionId !== undefined;
  }

  private post(body: string, headers: Record<string, string | number>, method = 'POST'): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const req = request(
        { agent: this.agent, host: this.host, port: this.port, path: this.path, method, headers },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString(),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async call(): Promise<void> {
    const id = nextId++;
    const body = CALL_HEAD + id + CALL_TAIL;
    try {
      const reply = await this.post(body, {
        ...this.headers,
        'content-length': CALL_BASE_BYTES + String(id).length,
      });
      if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.text.slice(0, 120)}`);
      this.check(reply, id);
    } catch (err) {
      this.errors++;
      this.lastError = err instanceof Error ? err.message : String(err);
    }
  }

  private check(reply: Reply, id: number): void {
    const answer = messagesOf(reply.headers['content-type'], reply.text).find(
      (m) => (m as { id?: unknown }).id === id,
    ) as
      | { result?: { content?: { type?: string; text?: string }[]; isError?: boolean }; error?: unknown }
      | undefined;
    const content = answer?.result?.content?.[0];
    if (answer?.result?.isError || content?.type !== 'text' || content.text !== MCP_EXPECTED_TEXT) {
      throw new Error(`answered ${reply.text.slice(0, 160)}`);
    }
  }

  /** Ends the session (DELETE, as a client leaving a stateful server does), then the sockets. */
  async close(): Promise<void> {
    if (this.sessionId) {
      await this.post('', this.headers, 'DELETE').catch(() => undefined);
      this.sessionId = undefined;
    }
    this.agent.destroy();
  }
}
