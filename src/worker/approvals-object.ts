import { SETTLED_RETENTION_MS } from '../approvals/memory-store.js';
import { HOLDER_GONE, isPending, oldestFirst, settleEntry } from '../approvals/settle.js';
import { lateOutcome, type SettleResult, type StoreEvent, type StoredApproval } from '../approvals/store.js';
import type { ApprovalOutcome, ApprovalRequest } from '../approvals/types.js';

/** The reason the broker gives at a deadline; the object's alarm ends a request the same way. */
const DEADLINE = 'no decision before the deadline';
const EVENTS_TAG = 'events';
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One request in the object's storage. `alarmAt` is in the object's own clock. */
interface Entry extends StoredApproval {
  /** Pending: when the alarm ends it `expired`. Settled: when it is forgotten. */
  alarmAt: number;
}

/** What a park socket carries, so its close can be traced back to the request it holds. */
interface ParkAttachment {
  id: string;
}

export type ApprovalsObjectBody =
  | { op: 'create'; request: ApprovalRequest }
  | { op: 'get'; tenant: string; id: string }
  | { op: 'settle'; tenant: string; id: string; outcome: ApprovalOutcome; now: number }
  | { op: 'pending'; tenant: string; now: number }
  | { op: 'listeners' };

/**
 * One tenant's approval requests for every isolate of the gateway Worker: a Durable Object per
 * tenant (named by the tenant), its requests in the object's storage, each settle one read and
 * one write the object's input gate keeps together, so of racing settles exactly one writes. The
 * rule of settling is the memory store's (../approvals/settle.ts).
 *
 * Wake-ups go over hibernatable WebSockets: the isolate holding a parked call keeps a park socket
 * open to the object (opened before the request is recorded, which the object refuses without
 * one), and is sent the outcome on it however the request ends. A park socket that closes while
 * its request is pending means its holder is gone (the isolate was evicted, the call dropped): the
 * request ends `expired` at once, as a lapsed lease does on Redis. Inbox streams hold events sockets
 * and hear every creation and settlement. The alarm ends requests at their deadline (when no holder
 * did) and forgets settled ones after the retention.
 *
 * A plain class speaking fetch, as TenantLimiter, so the Worker's code imports nothing from
 * `cloudflare:*`.
 */
export class TenantApprovals {
  constructor(private readonly ctx: DurableObjectState) {}

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/park' || url.pathname === '/events') {
      if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
        return Response.json({ error: 'a WebSocket upgrade is required' }, { status: 426 });
      }
      const id = url.searchParams.get('id') ?? '';
      if (url.pathname === '/park' && !ID.test(id)) {
        return Response.json({ error: 'id: not a request id' }, { status: 400 });
      }
      return url.pathname === '/park' ? this.park(id) : this.events();
    }
    if (url.pathname !== '/op' || request.method !== 'POST') return new Response(null, { status: 404 });
    let body: ApprovalsObjectBody;
    try {
      body = (await request.json()) as ApprovalsObjectBody;
    } catch {
      return Response.json({ error: 'body is not valid JSON' }, { status: 400 });
    }
    switch (body.op) {
      case 'create':
        return this.create(body.request);
      case 'get':
        return Response.json({ entry: stored(await this.entry(body.tenant, body.id)) });
      case 'settle':
        return Response.json(await this.settle(body.tenant, body.id, body.outcome, body.now));
      case 'pending':
        return Response.json({ requests: await this.pending(body.tenant, body.now) });
      case 'listeners':
        // How many inbox streams hear this tenant: what a test waits on before it creates one.
        return Response.json({ events: this.ctx.getWebSockets(EVENTS_TAG).filter(isOpen).length });
      default:
        return Response.json({ error: 'op: unknown' }, { status: 400 });
    }
  }

  /** Ends requests at their deadline (no holder did) and forgets settled ones; then sets the next. */
  async alarm(): Promise<void> {
    const now = Date.now();
    let next: number | undefined;
    for (const [key, entry] of await this.ctx.storage.list<Entry>({ prefix: 'r:' })) {
      if (entry.alarmAt > now) {
        next = Math.min(next ?? entry.alarmAt, entry.alarmAt);
      } else if (entry.outcome) {
        await this.ctx.storage.delete(key);
      } else {
        const written = await this.write(key, entry, settleEntry(entry, lateOutcome(now, DEADLINE), now));
        next = Math.min(next ?? written, written);
      }
    }
    if (next !== undefined) await this.ctx.storage.setAlarm(next);
  }

  async webSocketMessage(): Promise<void> {
    // Nothing is asked over a socket: requests come by fetch, outcomes go out.
  }

  async webSocketClose(ws: WebSocket, code: number): Promise<void> {
    await this.holderLeft(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, 'closed');
    } catch {
      // Already closed.
    }
  }

  async webSocketError(ws: WebSocket): Promise<void> {
    await this.holderLeft(ws);
  }

  private park(id: string): Response {
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server, [parkTag(id)]);
    server.serializeAttachment({ id } satisfies ParkAttachment);
    // A holder that attaches again (its socket dropped) hears at once how the request ended.
    void this.ctx.storage.get<Entry>(`r:${id}`).then((entry) => {
      if (entry?.outcome) send(server, settledEvent(entry, entry.outcome));
    });
    return new Response(null, { status: 101, webSocket: client });
  }

  private events(): Response {
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server, [EVENTS_TAG]);
    return new Response(null, { status: 101, webSocket: client });
  }

  private async create(request: ApprovalRequest): Promise<Response> {
    if (!request || !ID.test(String(request.id)) || typeof request.binding?.expiresAt !== 'number') {
      return Response.json({ error: 'request: not an approval request' }, { status: 400 });
    }
    const key = `r:${request.id}`;
    if (await this.ctx.storage.get(key)) {
      return Response.json({ error: 'a request with this id exists' }, { status: 409 });
    }
    // Only a request someone holds may be recorded: it is answered to that holder or to no one.
    if (!this.ctx.getWebSockets(parkTag(request.id)).some(isOpen)) {
      return Response.json({ error: 'no park socket is open for this request' }, { status: 409 });
    }
    // The deadline as a span of the object's own clock: the same instant in any isolate's.
    const alarmAt = Date.now() + Math.max(0, request.binding.expiresAt - request.createdAt);
    await this.ctx.storage.put<Entry>(key, { request, alarmAt });
    await this.alarmBy(alarmAt);
    this.broadcast({ type: 'created', request });
    return Response.json({ created: request.id }, { status: 201 });
  }

  private async settle(
    tenant: string,
    id: string,
    outcome: ApprovalOutcome,
    now: number,
  ): Promise<SettleResult> {
    const entry = await this.entry(tenant, id);
    const result = settleEntry(entry, outcome, now);
    if (entry) await this.write(`r:${id}`, entry, result);
    return result;
  }

  private async pending(tenant: string, now: number): Promise<ApprovalRequest[]> {
    const out: ApprovalRequest[] = [];
    for (const entry of (await this.ctx.storage.list<Entry>({ prefix: 'r:' })).values()) {
      if (entry.request.binding.tenant === tenant && isPending(entry, now)) out.push(entry.request);
    }
    return oldestFirst(out);
  }

  /** A park socket closed: if no other holds its request and the request is pending, it ends. */
  private async holderLeft(ws: WebSocket): Promise<void> {
    const id = (ws.deserializeAttachment() as ParkAttachment | null)?.id;
    if (!id) return;
    if (this.ctx.getWebSockets(parkTag(id)).some((other) => other !== ws && isOpen(other))) return;
    const key = `r:${id}`;
    const entry = await this.ctx.storage.get<Entry>(key);
    if (!entry || entry.outcome) return;
    const now = Date.now();
    await this.write(key, entry, settleEntry(entry, lateOutcome(now, HOLDER_GONE), now));
  }

  /** Stores a `written` result and tells its holder and the inbox streams; returns the alarm time. */
  private async write(key: string, entry: Entry, result: SettleResult): Promise<number> {
    if (result.kind !== 'written') return entry.alarmAt;
    const alarmAt = Date.now() + SETTLED_RETENTION_MS;
    await this.ctx.storage.put<Entry>(key, { request: entry.request, outcome: result.outcome, alarmAt });
    await this.alarmBy(alarmAt);
    const event = settledEvent(entry, result.outcome);
    for (const ws of this.ctx.getWebSockets(parkTag(entry.request.id))) send(ws, event);
    this.broadcast(event);
    return alarmAt;
  }

  private async entry(tenant: string, id: string): Promise<Entry | undefined> {
    if (typeof id !== 'string' || !ID.test(id)) return undefined;
    const entry = await this.ctx.storage.get<Entry>(`r:${id}`);
    // Another tenant's id reads as no request at all.
    return entry?.request.binding.tenant === tenant ? entry : undefined;
  }

  private async alarmBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || at < current) await this.ctx.storage.setAlarm(at);
  }

  private broadcast(event: StoreEvent): void {
    for (const ws of this.ctx.getWebSockets(EVENTS_TAG)) send(ws, event);
  }
}

function parkTag(id: string): string {
  return `park:${id}`;
}

function settledEvent(entry: StoredApproval, outcome: ApprovalOutcome): StoreEvent {
  return { type: 'settled', tenant: entry.request.binding.tenant, id: entry.request.id, outcome };
}

function stored(entry: Entry | undefined): StoredApproval | undefined {
  return entry && { request: entry.request, ...(entry.outcome ? { outcome: entry.outcome } : {}) };
}

function isOpen(ws: WebSocket): boolean {
  return ws.readyState === WebSocket.OPEN;
}

function send(ws: WebSocket, event: StoreEvent): void {
  try {
    ws.send(JSON.stringify(event));
  } catch {
    // A socket closing as this was sent: its close handler settles what it held.
  }
}
