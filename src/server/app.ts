import { type Context, Hono } from 'hono';
import { AloneRouter, alone } from './alone-router.js';
import type { UpgradeWebSocket, WSContext } from 'hono/ws';
import type { LimitSpec } from '../config/runtime.js';
import { PROTOCOL_VERSION } from '../protocol/methods.js';
import { adminAccess, adminRefusal, requireAdmin } from './admin.js';
import { allowedMethods } from './allowed-methods.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import { approvalsPageRoutes } from './approvals-page.js';
import { approvalRoutes } from './approvals-route.js';
import { type AuthVariables, extractToken, hookAuthoriser, requireHookAccess } from './auth.js';
import { readBodyLimited } from './body.js';
import { type DocsAssetsLoader, docsRoutes } from './docs.js';
import { errorResponse, httpError } from './errors.js';
import type { AdmittedCall, CallAnswer, CallRoute } from './call-request.js';
import { CALL_ROUTES } from './call-routes.js';
import { logRequest, requestIdOf, requestStarted } from './request-context.js';
import type { Gateway } from './gateway.js';
import type { LiveConfig } from './live-config.js';
import type { Logger } from './logger.js';
import { mcpRoute } from './mcp-route.js';
import type { Metrics } from './metrics.js';
import { buildOpenApiDocument } from './openapi.js';
import type { ReloadOutcome } from './reload.js';
import { type SessionSocket, WsSession } from './ws-session.js';

export interface AppDeps {
  /** The current config, verifiers and backends; read per request, swapped by a reload. */
  live: LiveConfig;
  gateway: Gateway;
  log: Logger;
  metrics: Metrics;
  /** The runtime's WebSocket upgrade helper (Node: @hono/node-server, Workers: hono/cloudflare-workers). */
  upgradeWebSocket?: UpgradeWebSocket<any>;
  /** Runtime glue for a new socket (keepalive, backpressure); returns a cleanup. */
  onSocketOpen?: (raw: unknown, session: WsSession) => (() => void) | undefined;
  /** Output queued on a socket (runtime-specific); with wsHighWaterBytes, bounds what a slow reader costs. */
  bufferedAmount?: (raw: unknown) => number;
  wsHighWaterBytes?: number;
  /** Open sessions, for graceful shutdown and reload. */
  sessions?: Set<WsSession>;
  /** Re-reads the config (POST /admin/reload); absent where config comes by redeploy (Workers). */
  reload?: () => Promise<ReloadOutcome>;
  /** The docs viewer's files (each runtime bundles or reads them its own way); without, /docs links the spec. */
  docsAssets?: DocsAssetsLoader;
  /** Calls waiting for a person; with it, the approval API and inbox are served (docs/approvals.md). */
  approvals?: ApprovalBroker;
}

/** A tenant's or hook's limits as the config spells them (describe shows a caller what it is held to). */
function limitDoc(spec: LimitSpec): Record<string, number> {
  const out: Record<string, number> = {};
  if (spec.callsPerSecond !== undefined) {
    out.calls_per_second = spec.callsPerSecond;
    out.burst = spec.burst;
  }
  if (spec.maxInFlight !== undefined) out.max_in_flight = spec.maxInFlight;
  return out;
}

type Env = { Variables: AuthVariables & { idSent?: boolean } };

/** Every host protocol a hook answers, as describe lists them: PicoClaw's is the native route's. */
const DIALECTS = [...CALL_ROUTES.keys()].map((dialect) => dialect || 'picoclaw');

/**
 * A hook call's answer, already serialised. Built with plain-object headers so the Node adapter
 * writes it straight out; hono's `c.body` with two headers builds a web `Headers` first.
 */
function jsonAnswer(c: Context<Env>, text: string): Response {
  c.set('idSent', true);
  return new Response(text, {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-request-id': c.get('requestId') },
  });
}

/**
 * A call route's call as hono gives it (see call-request.ts): the admitted caller from the context,
 * the body read within the limit, and, each read from the request only when read, the abort signal
 * (the gateway reads it for a call held for a person: on Node the request's AbortSignal is made on
 * first read, at about 2 µs, and almost no call needs it) and the `traceparent` (read when the
 * gateway traces calls: a header lookup otherwise spent on every call).
 */
class HonoCall implements AdmittedCall {
  readonly principal: AdmittedCall['principal'];
  readonly hook: AdmittedCall['hook'];
  readonly requestId: string;
  constructor(
    private readonly c: Context<Env>,
    private readonly maxBodyBytes: number,
  ) {
    this.principal = c.get('principal');
    this.hook = c.get('hook');
    this.requestId = c.get('requestId');
  }

  text(): Promise<string> {
    return readBodyLimited(this.c, this.maxBodyBytes);
  }

  get signal(): AbortSignal {
    return this.c.req.raw.signal;
  }

  get traceparent(): string | undefined {
    return this.c.req.header('traceparent') ?? undefined;
  }
}

/** A call route's answer as hono's response: the JSON text with the request's id, or a 202. */
function callResponse(c: Context<Env>, answer: CallAnswer): Response {
  if (answer === null) return c.body(null, 202);
  return typeof answer === 'string' ? jsonAnswer(c, answer) : answer;
}

/**
 * A WebSocket as the session sees it. A class rather than an object of arrow functions: it lives as
 * long as its connection, and prototype methods cost nothing per connection.
 */
class ContextSocket implements SessionSocket {
  constructor(
    private readonly ws: WSContext,
    private readonly bufferedAmount?: (raw: unknown) => number,
  ) {}
  send(text: string): void {
    this.ws.send(text);
  }
  close(code: number, reason: string): void {
    this.ws.close(code, reason);
  }
  buffered(): number {
    return this.bufferedAmount ? this.bufferedAmount(this.ws.raw) : 0;
  }
}

/**
 * Builds the gateway's HTTP surface from a validated config. Web-standard only (Request in,
 * Response out); Node and Workers entries wrap it with their own serving and WebSocket glue.
 */
export function createApp(deps: AppDeps): Hono<Env> {
  const { live, gateway, log, metrics } = deps;
  // Server settings apply at start only (a reload reports changed ones as needing a restart).
  const server = live.current.config.server;
  const app = new Hono<Env>({ router: new AloneRouter() });
  const openapi = buildOpenApiDocument();

  /**
   * Every request's context: its id (the client's if well formed, else a new one), the x-request-id
   * header on its answer, and at info level a log line. The `*` middleware gives it to every route
   * but the call routes, which run alone (see `callRoute`) and give it to themselves.
   */
  function opened(c: Context<Env>): number {
    c.set('requestId', requestIdOf(c.req.header('x-request-id')));
    return requestStarted(log);
  }
  function logged(c: Context<Env>, res: Response, started: number): void {
    logRequest(log, started, c.get('requestId'), c.req.method, c.req.path, res.status);
  }
  app.use('*', async function requestContext(c, next) {
    const started = opened(c);
    await next();
    // The call routes put the id into their own answer (see jsonAnswer); for the others it is added
    // here. Adding it to a call's answer afterwards would make the Node adapter build a full web
    // Response for every call.
    if (!c.get('idSent')) c.header('x-request-id', c.get('requestId'));
    logged(c, c.res, started);
  });
  function answerError(err: unknown, c: Context<Env>): Response {
    return errorResponse(err, c.get('requestId'), log);
  }
  app.onError(answerError);
  const allowOf = allowedMethods();
  app.notFound((c) => {
    const allow = allowOf(c.req.path);
    if (allow) {
      const message = `${c.req.method} is not allowed here; use ${allow}`;
      return c.json({ error: { code: 'method_not_allowed', message } }, 405, { allow });
    }
    return c.json({ error: { code: 'not_found', message: 'no such route' } }, 404);
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  // Which tenants and hooks exist is as private as the tenants' tokens: without the admin token,
  // /readyz says only whether the gateway is ready.
  app.get('/readyz', (c) => {
    const access = adminAccess(live, c.req.raw.headers);
    if (access === 'refused') throw adminRefusal(access);
    const { config, backends } = live.current;
    const notReady: string[] = [];
    for (const tenant of config.tenants.values()) {
      for (const hook of tenant.hooks.values()) {
        if (!backends.get(hook)?.ready()) notReady.push(`${tenant.name}/${hook.name}`);
      }
    }
    const ready = notReady.length === 0;
    return c.json(access === 'granted' ? { ready, not_ready: notReady } : { ready }, ready ? 200 : 503);
  });
  const admin = requireAdmin(live);
  app.get('/metrics', admin, (c) =>
    c.text(metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }),
  );
  app.post('/admin/reload', admin, async (c) => {
    if (!deps.reload) {
      throw httpError(
        501,
        'not_implemented',
        'config reload is not available on this runtime (a Worker gets its config by redeploy)',
      );
    }
    const outcome = await deps.reload();
    if (!outcome.ok) {
      return c.json(
        {
          error: { code: 'config_invalid', message: 'the new config is invalid; nothing changed' },
          issues: outcome.issues.map((i) => ({ path: i.path || '(root)', message: i.message })),
        },
        400,
      );
    }
    return c.json({ reloaded: true, ...outcome.summary });
  });
  app.get('/openapi.json', (c) => c.json(openapi));
  docsRoutes(app, deps.docsAssets);
  if (deps.approvals) {
    approvalsPageRoutes(app);
    approvalRoutes(app, { live, broker: deps.approvals, metrics, log });
  }

  const access = requireHookAccess(live, metrics);
  const base = '/v1/tenants/:tenant/hooks/:hook';

  app.get(`${base}/ws`, access, async (c, next) => {
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket' || !deps.upgradeWebSocket) {
      throw httpError(426, 'bad_request', 'expected a WebSocket upgrade', { upgrade: 'websocket' });
    }
    const principal = c.get('principal');
    const hook = c.get('hook');
    const connectionId = c.get('requestId');
    const snapshot = c.get('snapshot');
    const token = extractToken(c.req.raw.headers);
    let session: WsSession | undefined;
    let cleanup: (() => void) | undefined;
    const handler = deps.upgradeWebSocket(() => ({
      onOpen(_evt: Event, ws: WSContext) {
        session = new WsSession(new ContextSocket(ws, deps.bufferedAmount), gateway, principal, hook, {
          maxInFlight: server.maxInFlight,
          log,
          connectionId,
          highWaterBytes: deps.wsHighWaterBytes,
          token,
          live,
          snapshot,
          traceparent: c.req.header('traceparent'),
        });
        deps.sessions?.add(session);
        metrics.inc('hookgate_ws_connections', {}, 1);
        cleanup = deps.onSocketOpen?.(ws.raw, session);
      },
      onMessage(evt: MessageEvent, _ws: WSContext) {
        if (typeof evt.data === 'string') session?.onText(evt.data);
        else session?.onBinary();
      },
      onClose() {
        if (!session) return;
        session.onClose();
        deps.sessions?.delete(session);
        metrics.inc('hookgate_ws_connections', {}, -1);
        cleanup?.();
      },
    }));
    return handler(c, next);
  });

  const mcp = mcpRoute({ gateway, metrics, maxBodyBytes: server.maxBodyBytes });
  app.post(`${base}/mcp`, access, (c) => mcp.post(c));
  app.on(['GET', 'DELETE'], `${base}/mcp`, access, (c) => mcp.notAllowed(c));

  app.get(base, access, (c) => {
    const hook = c.get('hook');
    const policy = gateway.policyFor(c.get('principal'), hook);
    const backend = gateway.backendOf(hook);
    return c.json({
      tenant: hook.tenant,
      hook: hook.name,
      protocol_version: PROTOCOL_VERSION,
      modes: hook.modeList,
      tools: [...policy.tools],
      grants: {
        rewrite_tools: [...policy.rewritable].filter((t) => !policy.tools.has(t)),
        rewrite_results: hook.grants.rewriteResults,
        rewrite_llm_response: hook.grants.rewriteLlmResponse,
        rewrite_messages: hook.grants.rewriteMessages,
        rewrite_model: hook.grants.rewriteModel,
        conversation_access: hook.grants.conversationAccess,
        approve_tools: [...policy.approvable],
      },
      // The host protocols this hook answers: PicoClaw's on the base route and /ws, the others
      // each on their own route below it.
      dialects: DIALECTS,
      on_violation: hook.onViolation,
      on_failure: hook.onFailure,
      timeout_ms: hook.timeoutMs,
      approval_timeout_ms: hook.approvalTimeoutMs,
      limits: {
        max_body_bytes: server.maxBodyBytes,
        max_in_flight: server.maxInFlight,
        ...(hook.limits?.hook ? { hook: limitDoc(hook.limits.hook) } : {}),
        ...(hook.limits?.tenant ? { tenant: limitDoc(hook.limits.tenant) } : {}),
      },
      backend: { type: hook.backend.type, ready: backend?.ready() ?? false },
      mcp: `/v1/tenants/${hook.tenant}/hooks/${hook.name}/mcp`,
    });
  });

  /**
   * A route every hook call takes (the native one, each host's): it runs alone (see `alone`), so
   * hono calls it without composing the `*` middleware and `access`, and it does their work itself:
   * the request context, then the caller's access (hookAuthoriser, what `access` runs), then the
   * answer; a refusal or error is answered as onError answers it.
   */
  const authorise = hookAuthoriser(live, metrics);
  const callRoute = (route: CallRoute) =>
    alone(async (c: Context<Env>): Promise<Response> => {
      const started = opened(c);
      let res: Response;
      try {
        const pending = authorise(c);
        if (pending !== undefined) await pending;
        res = callResponse(c, await route(new HonoCall(c, server.maxBodyBytes), gateway));
      } catch (err) {
        res = answerError(err, c);
      }
      // Not a call's answer (a refusal, a notification's 202): made just now, so its headers are its own.
      if (!c.get('idSent')) res.headers.set('x-request-id', c.get('requestId'));
      logged(c, res, started);
      return res;
    });
  // The native route (PicoClaw's protocol) on the hook's path, each host's below it.
  for (const [dialect, route] of CALL_ROUTES)
    app.post(dialect ? `${base}/${dialect}` : base, callRoute(route));

  return app;
}
