import type { Context, Hono, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { z } from 'zod';
import { isApprover } from '../approvals/approver.js';
import { ARGS_DIGEST_PATTERN } from '../approvals/binding.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import { ApprovalError, type ApprovalErrorCode } from '../approvals/errors.js';
import type { ApprovalEvent, ApprovalOutcome, ApprovalRequest } from '../approvals/types.js';
import { AuthError } from '../auth/errors.js';
import type { Principal } from '../auth/principal.js';
import { extractToken } from './auth.js';
import { readBodyLimited } from './body.js';
import { httpError, unauthorized } from './errors.js';
import type { LiveConfig } from './live-config.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

/** A decision is a few fields; anything larger is not one. */
const MAX_DECISION_BYTES = 16 * 1024;
export const MAX_REASON_CHARS = 1_000;
/** A comment line this often keeps proxies from closing an idle event stream. */
const KEEPALIVE_MS = 15_000;
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const decisionBodySchema = z
  .object({
    decision: z.enum(['approve', 'deny']),
    reason: z.string().max(MAX_REASON_CHARS).optional(),
    args_digest: z.string().regex(ARGS_DIGEST_PATTERN).optional(),
  })
  .strict();

type Env = { Variables: { approver: Principal; requestId: string } };

export interface ApprovalRouteDeps {
  live: LiveConfig;
  broker: ApprovalBroker;
  metrics: Metrics;
  log: Logger;
}

/** A request as the inbox and the API show it. `args` only when the caller let them be shown. */
export function requestView(r: ApprovalRequest) {
  const b = r.binding;
  return {
    id: r.id,
    tenant: b.tenant,
    hook: b.hook,
    host: b.host,
    tool: b.tool,
    args_digest: b.argsDigest,
    config_revision: b.configRevision,
    created_at: r.createdAt,
    expires_at: b.expiresAt,
    ...(r.display.reason !== undefined ? { reason: r.display.reason } : {}),
    ...(r.display.args !== undefined ? { args: r.display.args } : {}),
  };
}

export function outcomeView(id: string, o: ApprovalOutcome) {
  return {
    id,
    decision: o.decision,
    ...(o.reason !== undefined ? { reason: o.reason } : {}),
    ...(o.approver !== undefined ? { approver: o.approver } : {}),
    decided_at: o.decidedAt,
  };
}

const REFUSALS: Record<ApprovalErrorCode, [number, string]> = {
  NOT_FOUND: [404, 'not_found'],
  ALREADY_DECIDED: [409, 'already_decided'],
  DIGEST_MISMATCH: [409, 'digest_mismatch'],
  EXPIRED: [410, 'expired'],
  STORE_UNAVAILABLE: [503, 'unavailable'],
};

/**
 * The approval API: a tenant's approvers list the calls waiting for them, decide one, and follow
 * new ones live (Server-Sent Events). Every route takes an approver token of that tenant in the
 * Authorization header; never in the URL.
 */
export function approvalRoutes(app: Hono<any>, deps: ApprovalRouteDeps): void {
  const { broker } = deps;
  const base = '/v1/tenants/:tenant/approvals';
  const approver = requireApprover(deps.live, deps.metrics);

  app.get(base, approver, async (c) => {
    const pending = await answerRefusals(() => broker.pending(tenantOf(c)));
    return c.json({ approvals: pending.map(requestView) }, 200, { 'cache-control': 'no-store' });
  });

  app.get(`${base}/events`, approver, (c) => eventStream(c, broker));

  app.post(`${base}/:id`, approver, async (c) => {
    const id = c.req.param('id') ?? '';
    const text = await readBodyLimited(c, MAX_DECISION_BYTES);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw httpError(400, 'bad_request', 'body is not valid JSON');
    }
    const parsed = decisionBodySchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
      throw httpError(400, 'bad_request', `${where}: ${issue.message}`);
    }
    // Not a request id at all: the same answer as an unknown one.
    if (!REQUEST_ID.test(id)) throw httpError(404, 'not_found', 'no such approval request for this tenant');
    const body = parsed.data;
    const outcome = await answerRefusals(() =>
      broker.decide(tenantOf(c), id, {
        approve: body.decision === 'approve',
        reason: body.reason,
        approver: c.get('approver').subject as string,
        argsDigest: body.args_digest,
      }),
    );
    return c.json(outcomeView(id, outcome), 200);
  });
}

function tenantOf(c: Context<Env>): string {
  return c.req.param('tenant') ?? '';
}

async function answerRefusals<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof ApprovalError)) throw err;
    const [status, code] = REFUSALS[err.code];
    const res = new Response(JSON.stringify({ error: { code, message: err.message } }), {
      status,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    throw new HTTPException(status as 400, { res, message: err.message });
  }
}

/**
 * Live events for one tenant: `ready` once subscribed (list after it, and nothing is missed),
 * then `created` and `decided`. The stream ends when the token expires: a stream never outlives
 * the credential that opened it.
 */
function eventStream(c: Context<Env>, broker: ApprovalBroker): Response {
  const tenant = tenantOf(c);
  const expiresAt = c.get('approver').exp * 1000;
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      const write = (text: string) => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      const send = (event: string, data: unknown) =>
        write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      // `ready` once the subscription hears events (on Workers, once its socket to the tenant's
      // object is open): an inbox that lists after it misses nothing.
      const off = broker.subscribe(
        tenant,
        (e: ApprovalEvent) => {
          if (e.type === 'created') send('created', requestView(e.request));
          else send('decided', outcomeView(e.id, e.outcome));
        },
        () => send('ready', { tenant }),
      );
      const keepalive = setInterval(() => write(': keepalive\n\n'), KEEPALIVE_MS);
      const finish = () => {
        if (!open) return;
        stop?.();
        controller.close();
      };
      const end = setTimeout(finish, Math.max(0, expiresAt - Date.now()));
      // A stopping gateway ends its streams, so an open inbox does not hold the stop for its grace.
      const closing = broker.closedSignal;
      closing.addEventListener('abort', finish);
      stop = () => {
        if (!open) return;
        open = false;
        off();
        clearInterval(keepalive);
        clearTimeout(end);
        closing.removeEventListener('abort', finish);
      };
      if (closing.aborted) finish();
    },
    cancel() {
      stop?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'x-request-id': c.get('requestId'),
    },
  });
}

/**
 * An approver of this tenant: a token signed by one of its keys (401 otherwise, the same answer
 * for a tenant that does not exist), for this tenant, carrying the approver claim and a `sub` (403
 * otherwise). A hook token is refused here whatever hooks it may call.
 */
export function requireApprover(live: LiveConfig, metrics: Metrics): MiddlewareHandler<Env> {
  return async function approverAccess(c, next) {
    const { verifiers } = live.current;
    const tenant = tenantOf(c);
    const refuse = (reason: string) =>
      metrics.inc('hookgate_auth_failures_total', { tenant: verifiers.has(tenant) ? tenant : '?', reason });
    const token = extractToken(c.req.raw.headers);
    if (!token) {
      refuse('missing');
      const inQuery = /[?&](access_token|token|jwt)=/i.test(c.req.url);
      throw unauthorized(
        inQuery
          ? 'tokens in the URL are not accepted; use Authorization: Bearer'
          : 'an approver token is required (Authorization: Bearer)',
        inQuery ? 'invalid_request' : 'invalid_token',
      );
    }
    const verifier = verifiers.get(tenant);
    if (!verifier) {
      refuse('unknown_tenant');
      throw unauthorized('token did not verify');
    }
    let principal: Principal;
    try {
      principal = await verifier.authenticate(token);
    } catch (err) {
      if (!(err instanceof AuthError)) throw err;
      refuse(err.code.toLowerCase());
      if (err.status === 403) throw httpError(403, 'forbidden', err.message);
      throw unauthorized(err.message);
    }
    if (principal.tenant !== tenant) {
      refuse('tenant_mismatch');
      throw httpError(403, 'forbidden', 'token is not valid for this tenant');
    }
    if (!isApprover(principal)) {
      refuse('not_approver');
      throw httpError(
        403,
        'forbidden',
        'not an approver token (it needs the claim hookgate_role: "approver")',
      );
    }
    if (!principal.subject) {
      refuse('no_subject');
      throw httpError(403, 'forbidden', 'an approver token needs a sub: who decides is recorded');
    }
    c.set('approver', principal);
    await next();
  };
}
