import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { Principal } from '../auth/principal.js';
import type { HookRuntime } from '../config/runtime.js';
import { admission, bearerToken } from '../server/auth.js';
import type { AdmittedCall, CallAnswer, CallRoute } from '../server/call-request.js';
import { CALL_ROUTES } from '../server/call-routes.js';
import { errorResponse } from '../server/errors.js';
import type { Gateway } from '../server/gateway.js';
import type { LiveConfig } from '../server/live-config.js';
import type { Logger } from '../server/logger.js';
import { logRequest, requestIdOf, requestStarted } from '../server/request-context.js';

/**
 * A call route's path: `/v1/tenants/{tenant}/hooks/{hook}`, with names as the config spells them
 * (config/schema.ts), and a host's dialect after it if any (see server/call-routes.ts).
 */
const CALL_PATH =
  /^\/v1\/tenants\/([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\/hooks\/([A-Za-z0-9][A-Za-z0-9_.-]{0,63})(?:\/([a-z-]{1,32}))?$/;

export interface DirectCallDeps {
  live: LiveConfig;
  gateway: Gateway;
  log: Logger;
  /** server.max_body_bytes (read at start, as the app reads it). */
  maxBodyBytes: number;
}

/**
 * The call routes (the native one, each host's) answered straight from node:http, before the
 * request becomes a web Request for hono: one call at a time, that adapter's layers (request and
 * response objects, routing, context) cost a call more than its own work (docs/performance.md).
 * The call's work is the app's own route (server/call-routes.ts), so the two cannot answer a call
 * differently.
 *
 * A request is taken only when nothing on the way can refuse it: POST on a call route's exact path,
 * a Content-Length within the limit and no Transfer-Encoding, a bearer token already verified (in
 * the tenant's cache) and admitted to the hook. Anything else returns false and goes to the app,
 * which answers it as it always has: every refusal, with its metrics and its wording, in one place.
 */
export function directCallRoute(
  deps: DirectCallDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { live, maxBodyBytes } = deps;
  return function takeCall(req, res) {
    if (req.method !== 'POST') return false;
    const path = CALL_PATH.exec(req.url ?? '');
    if (path === null) return false;
    const route = CALL_ROUTES.get(path[3] ?? '');
    if (route === undefined) return false;
    const { headers } = req;
    const length = headers['content-length'];
    if (length === undefined || headers['transfer-encoding'] !== undefined || Number(length) > maxBodyBytes) {
      return false;
    }
    const auth = headers.authorization;
    const token = auth === undefined ? undefined : bearerToken(auth);
    if (token === undefined) return false;
    const snapshot = live.current;
    const tenant = path[1];
    const principal = snapshot.verifiers.get(tenant)?.cached(token);
    if (principal === undefined) return false;
    const hook = admission(snapshot, tenant, path[2], principal);
    if (typeof hook === 'string') return false;
    const call = new NodeCall(req, res, principal, hook);
    answer(deps, route, call, res).catch((err: unknown) => failed(deps.log, call, res, err));
    return true;
  };
}

/**
 * node:http's createServer, for @hono/node-server's `createServer` option: the server it makes
 * offers each request to the direct call route first (`take`), then to the app's listener.
 */
export function createServerWithDirectCalls(
  take: (req: IncomingMessage, res: ServerResponse) => boolean,
): typeof createServer {
  const create = (options: ServerOptions, app: RequestListener) =>
    createServer(options, (req, res) => {
      if (!take(req, res)) app(req, res);
    });
  return create as typeof createServer;
}

/** What a body that never came whole rejects with: not an error to answer, there is no one to answer. */
const CLIENT_GONE = new Error('the client went away before its body was whole');

async function answer(
  deps: DirectCallDeps,
  route: CallRoute,
  call: NodeCall,
  res: ServerResponse,
): Promise<void> {
  const { log } = deps;
  const started = requestStarted(log);
  const { requestId } = call;
  let out: CallAnswer;
  try {
    out = await route(call, deps.gateway);
  } catch (err) {
    if (err === CLIENT_GONE) return;
    out = errorResponse(err, requestId, log);
  }
  let status: number;
  if (typeof out === 'string') {
    status = 200;
    res.writeHead(200, {
      'content-type': 'application/json',
      'x-request-id': requestId,
      'content-length': Buffer.byteLength(out),
    });
    res.end(out);
  } else if (out === null) {
    status = 202;
    res.writeHead(202, { 'x-request-id': requestId });
    res.end();
  } else {
    status = out.status;
    out.headers.set('x-request-id', requestId);
    await writeResponse(res, out);
  }
  logRequest(log, started, requestId, 'POST', call.path, status);
}

const decoder = new TextDecoder();

/**
 * The body as text (UTF-8, a leading byte-order mark dropped, as a web Request's `text()` reads
 * it), or undefined when the request ends before its Content-Length was read. Node's parser reads
 * no more than the Content-Length, which was within the limit.
 */
function bodyText(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    // A block, not `=> chunks.push(chunk)`: a listener that returns a value costs emit a check of it.
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
    });
    req.once('end', () => resolve(decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))));
    req.once('close', () => {
      if (!req.complete) resolve(undefined);
    });
    req.once('error', () => resolve(undefined));
  });
}

/** A web Response (a refusal, a 400) written to node:http whole; they are small. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const body = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers['content-length'] = String(Buffer.byteLength(body));
  res.writeHead(response.status, headers);
  res.end(body);
}

/**
 * What went wrong while the answer was being written: the app's 500 if nothing was sent yet, else
 * the connection is cut rather than left hanging. Logged either way.
 */
function failed(log: Logger, call: NodeCall, res: ServerResponse, err: unknown): void {
  const answer = errorResponse(err, call.requestId, log);
  if (res.headersSent) res.destroy();
  else writeResponse(res, answer).catch(() => res.destroy());
}

/**
 * A call route's call as node:http gives it (see server/call-request.ts). What the gateway may ask
 * of the request is made only when asked: the abort signal (read by a call held for a person:
 * aborted when the client goes away before its answer) and `traceparent`.
 */
class NodeCall implements AdmittedCall {
  readonly requestId: string;
  #signal: AbortSignal | undefined;
  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    readonly principal: Principal,
    readonly hook: HookRuntime,
  ) {
    const given = req.headers['x-request-id'];
    this.requestId = requestIdOf(typeof given === 'string' ? given : undefined);
  }

  get path(): string {
    return this.req.url ?? '';
  }

  async text(): Promise<string> {
    const text = await bodyText(this.req);
    if (text === undefined) throw CLIENT_GONE;
    return text;
  }

  get signal(): AbortSignal {
    if (this.#signal !== undefined) return this.#signal;
    const controller = new AbortController();
    const res = this.res;
    const gone = () => {
      if (!res.writableFinished) controller.abort(new Error('Client connection prematurely closed.'));
    };
    if (res.closed) gone();
    else res.once('close', gone);
    this.#signal = controller.signal;
    return this.#signal;
  }

  get traceparent(): string | undefined {
    const value = this.req.headers.traceparent;
    return typeof value === 'string' ? value : undefined;
  }
}
