import type { ApprovalStore, SettleResult, StoreEvent, StoredApproval } from '../approvals/store.js';
import type { ApprovalOutcome, ApprovalRequest } from '../approvals/types.js';
import type { AssembleOptions } from '../server/assemble.js';
import type { ApprovalsObjectBody } from './approvals-object.js';

/** The Durable Object namespace binding (wrangler.toml) that shares approvals across isolates. */
export const APPROVALS_BINDING = 'HOOKGATE_APPROVALS';
const ORIGIN = 'https://approvals.hookgate';
/**
 * A store call that takes longer fails: a decider gets STORE_UNAVAILABLE, a call whose request
 * cannot be recorded ends expired (recording is bounded by the call's own deadline as well). An
 * object answers in milliseconds; this only bounds how long a broken one can hold anyone.
 */
const CALL_TIMEOUT_MS = 30_000;
/** A park socket that drops is opened again this many times before the deadline timer alone is left. */
const REATTACH_TRIES = 3;
/** An inbox stream's events socket that drops is opened again after this long. */
const REOPEN_MS = 1_000;
/** Outcomes already passed on, so one heard twice (on a socket, then on reattaching) wakes once. */
const HEARD_MAX = 4_096;

interface Log {
  warn(obj: object, msg?: string): void;
}

/**
 * Approval requests in the tenant's Durable Object (./approvals-object.ts), so a call parked in
 * one isolate can be decided through a request that lands on any other.
 *
 * Each parked call holds a park socket to the object for its request and hears its outcome there;
 * each live subscriber (an inbox event stream) holds an events socket and hears the tenant's events
 * there. A socket, like a stub, belongs to the request that opened it (Workers tie I/O to the
 * request context), and what it hears goes only to that request's waiter or stream: nothing here
 * is passed between requests.
 */
export class DurableApprovalStore implements ApprovalStore {
  private readonly ids = new Map<string, DurableObjectId>();
  private readonly listeners = new Set<(event: StoreEvent) => void>();
  private readonly parked = new Map<string, WebSocket>();
  private readonly sockets = new Set<WebSocket>();
  private readonly heard = new Set<string>();
  private closed = false;

  constructor(
    private readonly namespace: DurableObjectNamespace,
    private readonly log?: Log,
  ) {}

  async create(request: ApprovalRequest): Promise<void> {
    const { tenant, expiresAt } = request.binding;
    // Until it is recorded the broker has no deadline timer running: the deadline bounds this too.
    const within = Math.min(CALL_TIMEOUT_MS, Math.max(1, expiresAt - request.createdAt));
    // The park socket first: the object records only a request someone holds.
    await this.attach(tenant, request.id, 0, within);
    try {
      await this.call(tenant, { op: 'create', request }, within);
    } catch (err) {
      this.detach(tenant, request.id);
      throw err;
    }
  }

  async get(tenant: string, id: string): Promise<StoredApproval | undefined> {
    return ((await this.call(tenant, { op: 'get', tenant, id })) as { entry?: StoredApproval }).entry;
  }

  settle(tenant: string, id: string, outcome: ApprovalOutcome, now: number): Promise<SettleResult> {
    return this.call(tenant, { op: 'settle', tenant, id, outcome, now }) as Promise<SettleResult>;
  }

  async pending(tenant: string, now: number): Promise<ApprovalRequest[]> {
    return ((await this.call(tenant, { op: 'pending', tenant, now })) as { requests: ApprovalRequest[] })
      .requests;
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The tenant's events on a socket of the calling request's own, to `listener` only: a stream
   * of one request cannot be written from another's (an event heard on some other socket would
   * be), so no event is passed between requests here.
   */
  watch(tenant: string, listener: (event: StoreEvent) => void, ready?: () => void): () => void {
    let released = false;
    let socket: WebSocket | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const again = () => {
      // Dropped under a live stream (the object moved or restarted): hear it again.
      if (!released && !this.closed) retry = setTimeout(open, REOPEN_MS);
    };
    const open = () => {
      this.socket(tenant, '/events').then(
        (ws) => {
          if (released || this.closed) {
            closeQuietly(ws);
            return;
          }
          socket = ws;
          ws.addEventListener('message', (e: MessageEvent) => {
            const event = parse(e.data);
            if (event) listener(event);
          });
          ws.addEventListener('close', again);
          // Told once, when the first socket is open: what is created from now on is heard.
          const told = ready;
          ready = undefined;
          told?.();
        },
        (err: unknown) => {
          this.log?.warn({ tenant, err: String(err) }, 'approval events unavailable');
          again();
        },
      );
    };
    open();
    return () => {
      if (released) return;
      released = true;
      clearTimeout(retry);
      if (socket) this.sockets.delete(socket);
      closeQuietly(socket);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const ws of [...this.parked.values(), ...this.sockets]) closeQuietly(ws);
    this.parked.clear();
    this.sockets.clear();
    this.listeners.clear();
  }

  /** Opens the park socket of a request; its outcome, when it comes, is passed on and the socket closed. */
  private async attach(tenant: string, id: string, tries: number, within = CALL_TIMEOUT_MS): Promise<void> {
    const ws = await this.socket(tenant, `/park?id=${id}`, within);
    const k = key(tenant, id);
    this.parked.set(k, ws);
    // The outcome wakes the call in the request that holds it: this socket is that request's.
    ws.addEventListener('message', (e: MessageEvent) => {
      const event = parse(e.data);
      if (event?.type !== 'settled') return;
      this.detach(event.tenant, event.id);
      this.emit(event);
    });
    ws.addEventListener('close', () => {
      if (this.parked.get(k) !== ws) return;
      this.parked.delete(k);
      if (!this.closed) void this.reattach(tenant, id, tries + 1);
    });
  }

  /**
   * A park socket dropped before the outcome came: ask how the request ended, else hold it again.
   * If that fails too, the broker's deadline timer ends the call (and learns any outcome then).
   */
  private async reattach(tenant: string, id: string, tries: number): Promise<void> {
    try {
      const entry = await this.get(tenant, id);
      if (entry?.outcome) {
        this.emit({ type: 'settled', tenant, id, outcome: entry.outcome });
        return;
      }
      if (entry && tries <= REATTACH_TRIES) await this.attach(tenant, id, tries);
    } catch (err) {
      this.log?.warn({ tenant, approval: id, err: String(err) }, 'approval wake-up socket lost');
    }
  }

  private detach(tenant: string, id: string): void {
    const k = key(tenant, id);
    const ws = this.parked.get(k);
    this.parked.delete(k);
    closeQuietly(ws);
  }

  private async socket(tenant: string, path: string, within = CALL_TIMEOUT_MS): Promise<WebSocket> {
    const res = await withTimeout(
      this.stub(tenant).fetch(`${ORIGIN}${path}`, { headers: { upgrade: 'websocket' } }),
      within,
    );
    const ws = res.webSocket;
    if (!ws) throw new Error(`approvals object answered ${res.status} to ${path.split('?')[0]}`);
    ws.accept();
    this.sockets.add(ws);
    ws.addEventListener('close', () => {
      this.sockets.delete(ws);
    });
    return ws;
  }

  private async call(tenant: string, body: ApprovalsObjectBody, within = CALL_TIMEOUT_MS): Promise<unknown> {
    const res = await withTimeout(
      this.stub(tenant).fetch(`${ORIGIN}/op`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
      within,
    );
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      throw new Error(`approvals object answered ${res.status} to ${body.op}: ${text.slice(0, 200)}`);
    }
    return res.json();
  }

  /** Tells the broker (its parked call here wakes); each request's outcome once. */
  private emit(event: StoreEvent & { type: 'settled' }): void {
    const seen = key(event.tenant, event.id);
    if (this.heard.has(seen)) return;
    this.heard.add(seen);
    if (this.heard.size > HEARD_MAX) this.heard.delete(this.heard.values().next().value as string);
    for (const l of this.listeners) l(event);
  }

  /**
   * A stub of the calling request's own: a stub made during one request cannot be used by another
   * (Workers tie it to the request context that made it). The id is kept; it is the same for all.
   */
  private stub(tenant: string): DurableObjectStub {
    let id = this.ids.get(tenant);
    if (!id) {
      id = this.namespace.idFromName(tenant);
      this.ids.set(tenant, id);
    }
    return this.namespace.get(id);
  }
}

function parse(data: unknown): StoreEvent | undefined {
  if (typeof data !== 'string') return undefined;
  try {
    return JSON.parse(data) as StoreEvent;
  } catch {
    return undefined;
  }
}

function key(tenant: string, id: string): string {
  return `${tenant}/${id}`;
}

function closeQuietly(ws: WebSocket | undefined): void {
  try {
    ws?.close(1000, 'done');
  } catch {
    // Already closed.
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** With the HOOKGATE_APPROVALS binding, approvals shared by all isolates; without, per isolate. */
export function durableApprovalStoreFactory(
  env: Record<string, unknown>,
): AssembleOptions['createApprovalStore'] {
  const namespace = env[APPROVALS_BINDING] as DurableObjectNamespace | undefined;
  if (!namespace || typeof namespace.idFromName !== 'function') return undefined;
  return ({ log }) => new DurableApprovalStore(namespace, log);
}
