import type { Logger } from '../server/logger.js';
import { type Clock, systemClock } from './clock.js';
import { ApprovalError } from './errors.js';
import { type ApprovalStore, lateOutcome, type SettleResult, type StoreEvent } from './store.js';
import type {
  ApprovalBinding,
  ApprovalDisplay,
  ApprovalEvent,
  ApprovalOutcome,
  ApprovalRequest,
  DecisionInput,
} from './types.js';
import { randomUuid } from '../lib/uuid.js';

export interface ApprovalBrokerOptions {
  store: ApprovalStore;
  clock?: Clock;
  /** Every request, decision, refusal and expiry is written here as an audit line. */
  log?: Logger;
  /** Told once per request, by the replica that created it (the tenant's webhook). Never awaited. */
  onCreated?: (request: ApprovalRequest) => void;
}

export interface AskOptions {
  /** Ends the request `expired` at once (the caller went away: nobody would act on a decision). */
  signal?: AbortSignal;
}

/** A parked call: resolved once, by whichever settle the store says won. */
interface Waiter {
  request: ApprovalRequest;
  resolve(outcome: ApprovalOutcome): void;
  cancelTimer?: () => void;
  offAbort?: () => void;
}

/**
 * Parks a call until a person decides or its deadline passes. The store decides who wins; this
 * class only parks, wakes and reports. Exactly one outcome per request: the parked promise always
 * resolves with the outcome the store holds, whichever settle (an approver here, an approver on
 * another replica, the deadline) wrote it.
 */
export class ApprovalBroker {
  private readonly store: ApprovalStore;
  private readonly clock: Clock;
  private readonly log?: Logger;
  private readonly onCreated?: (request: ApprovalRequest) => void;
  private readonly waiters = new Map<string, Waiter>();
  private readonly subscribers = new Map<string, Set<(event: ApprovalEvent) => void>>();
  private readonly offStore: () => void;
  private closed = false;
  private readonly closing = new AbortController();

  constructor(opts: ApprovalBrokerOptions) {
    this.store = opts.store;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.log;
    this.onCreated = opts.onCreated;
    this.offStore = this.store.subscribe((event) => this.onStoreEvent(event));
  }

  /**
   * Parks a call. `outcome` never rejects: a request that cannot be recorded, or is asked for with
   * its deadline already past, ends `expired` (a call nobody could approve is not approved).
   */
  ask(
    binding: ApprovalBinding,
    display: ApprovalDisplay = {},
    opts: AskOptions = {},
  ): { id: string; outcome: Promise<ApprovalOutcome> } {
    const id = randomUuid();
    const now = this.clock.now();
    const request: ApprovalRequest = { id, binding: { ...binding }, display: { ...display }, createdAt: now };
    const k = waiterKey(binding.tenant, id);
    const outcome = new Promise<ApprovalOutcome>((resolve) => {
      this.waiters.set(k, { request, resolve });
    });
    const expire = (reason?: string) => void this.expire(binding.tenant, id, reason);
    if (this.closed || binding.expiresAt <= now || opts.signal?.aborted) {
      const reason = this.closed
        ? 'the gateway is shutting down'
        : opts.signal?.aborted
          ? 'the call was abandoned'
          : 'the deadline had passed when approval was asked';
      this.finish(k, { decision: 'expired', reason, decidedAt: now });
      this.audit('approval not asked', request, { reason });
      return { id, outcome };
    }
    this.store.create(request).then(
      () => {
        const waiter = this.waiters.get(k);
        if (!waiter) {
          // Ended while it was being recorded (the broker closed): it must not stay approvable.
          const reason = 'the gateway holding the call stopped';
          void this.store
            .settle(binding.tenant, id, lateOutcome(this.clock.now(), reason), this.clock.now())
            .catch(() => {});
          return;
        }
        this.audit('approval asked', request);
        waiter.cancelTimer = this.clock.schedule(binding.expiresAt - this.clock.now(), () => expire());
        if (opts.signal) {
          const onAbort = () => expire('the call was abandoned');
          opts.signal.addEventListener('abort', onAbort, { once: true });
          waiter.offAbort = () => opts.signal?.removeEventListener('abort', onAbort);
        }
        try {
          this.onCreated?.(request);
        } catch (err) {
          this.log?.warn({ approval: id, err: String(err) }, 'approval notification failed');
        }
      },
      (err: unknown) => {
        const reason = 'the approval request could not be recorded';
        this.finish(k, { decision: 'expired', reason, decidedAt: this.clock.now() });
        this.audit('approval not asked', request, { reason, err: String(err) });
      },
    );
    return { id, outcome };
  }

  /**
   * An approver's decision. Single-use: the first decision wins; later ones, decisions past the
   * deadline, another tenant's ids and changed arguments are refused with an ApprovalError.
   */
  async decide(tenant: string, id: string, input: DecisionInput): Promise<ApprovalOutcome> {
    const who = { tenant, approval: id, approver: input.approver };
    const refuse = (code: ApprovalError['code'], message: string): never => {
      this.log?.info({ audit: { event: 'approval refused', ...who, code } }, 'approval decision refused');
      throw new ApprovalError(code, message);
    };
    const stored = await this.storeCall(() => this.store.get(tenant, id));
    if (!stored) return refuse('NOT_FOUND', 'no such approval request for this tenant');
    if (input.argsDigest !== undefined && input.argsDigest !== stored.request.binding.argsDigest) {
      return refuse(
        'DIGEST_MISMATCH',
        'the arguments this decision is for are not the ones the request is bound to',
      );
    }
    if (stored.outcome) return refuse(...alreadyRefusal(stored.outcome));
    const now = this.clock.now();
    const outcome: ApprovalOutcome = {
      decision: input.approve ? 'approved' : 'denied',
      approver: input.approver,
      decidedAt: now,
      ...(input.reason ? { reason: input.reason } : {}),
    };
    const result = await this.storeCall(() => this.store.settle(tenant, id, outcome, now));
    if (result.kind === 'missing') return refuse('NOT_FOUND', 'no such approval request for this tenant');
    this.wake(tenant, id, result);
    if (result.kind === 'already') return refuse(...alreadyRefusal(result.outcome));
    if (result.outcome.decision === 'expired') {
      return refuse(
        'EXPIRED',
        `the request ended before this decision: ${result.outcome.reason ?? 'expired'}`,
      );
    }
    this.auditOutcome(stored.request, result.outcome);
    return result.outcome;
  }

  /** The tenant's requests still waiting for a person, oldest first. */
  pending(tenant: string): Promise<ApprovalRequest[]> {
    return this.storeCall(() => this.store.pending(tenant, this.clock.now()));
  }

  /**
   * Live creations and decisions for one tenant (from every replica sharing the store). `ready` is
   * called once every later event will be heard: at once here, or when the subscriber's own
   * connection to the store is open (see ApprovalStore.watch).
   */
  subscribe(tenant: string, listener: (event: ApprovalEvent) => void, ready?: () => void): () => void {
    if (this.store.watch) {
      // Heard on the subscriber's own connection (see ApprovalStore.watch), not passed around here.
      return this.store.watch(tenant, (event) => this.tell(listener, tenant, approvalEvent(event)), ready);
    }
    const set = this.subscribers.get(tenant) ?? new Set();
    this.subscribers.set(tenant, set);
    set.add(listener);
    ready?.();
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.subscribers.get(tenant) === set) this.subscribers.delete(tenant);
    };
  }

  /** Aborted when the broker closes: live subscribers (an open event stream) end with it. */
  get closedSignal(): AbortSignal {
    return this.closing.signal;
  }

  /** Calls parked here and not yet decided. */
  get parked(): number {
    return this.waiters.size;
  }

  /**
   * Ends every call parked here `expired` (a restarted gateway cannot answer them), then closes
   * the store. Requests no longer parked anywhere must not stay approvable.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const keys = [...this.waiters.keys()];
    await Promise.all(
      keys.map((k) => {
        const [tenant, id] = splitKey(k);
        return this.expire(tenant, id, 'the gateway holding the call stopped');
      }),
    );
    // After the expiries, so live subscribers hear how the calls ended before their streams end.
    this.closing.abort();
    this.offStore();
    this.subscribers.clear();
    await this.store.close();
  }

  private async expire(tenant: string, id: string, reason?: string): Promise<void> {
    const k = waiterKey(tenant, id);
    const waiter = this.waiters.get(k);
    if (!waiter) return;
    const now = this.clock.now();
    const outcome: ApprovalOutcome = {
      decision: 'expired',
      reason: reason ?? 'no decision before the deadline',
      decidedAt: now,
    };
    let result: SettleResult;
    try {
      result = await this.store.settle(tenant, id, outcome, now);
    } catch (err) {
      // The store is unreachable: the call ends expired here (never approved by default); the
      // stored request is expired by a sweep or its key's expiry.
      this.log?.warn(
        { tenant, approval: id, err: String(err) },
        'approval store unreachable at the deadline',
      );
      result = { kind: 'written', outcome };
    }
    if (result.kind === 'written') this.audit('approval expired', waiter.request, { reason: outcome.reason });
    this.wake(tenant, id, result.kind === 'missing' ? { kind: 'written', outcome } : result);
  }

  private wake(tenant: string, id: string, result: SettleResult): void {
    if (result.kind === 'missing') return;
    this.finish(waiterKey(tenant, id), result.outcome);
  }

  private finish(k: string, outcome: ApprovalOutcome): void {
    const waiter = this.waiters.get(k);
    if (!waiter) return;
    this.waiters.delete(k);
    waiter.cancelTimer?.();
    waiter.offAbort?.();
    waiter.resolve(outcome);
  }

  private onStoreEvent(event: StoreEvent): void {
    if (event.type === 'created') {
      this.publish(event.request.binding.tenant, { type: 'created', request: event.request });
      return;
    }
    // A decision through another replica wakes the call parked here (the decider audited it).
    const { tenant, id, outcome } = event;
    this.finish(waiterKey(tenant, id), outcome);
    this.publish(tenant, { type: 'decided', tenant, id, outcome });
  }

  private publish(tenant: string, event: ApprovalEvent): void {
    for (const listener of this.subscribers.get(tenant) ?? []) this.tell(listener, tenant, event);
  }

  private tell(listener: (event: ApprovalEvent) => void, tenant: string, event: ApprovalEvent): void {
    try {
      listener(event);
    } catch (err) {
      this.log?.warn({ tenant, err: String(err) }, 'approval subscriber failed');
    }
  }

  private async storeCall<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof ApprovalError) throw err;
      throw new ApprovalError('STORE_UNAVAILABLE', 'the approval store could not be reached', { cause: err });
    }
  }

  private audit(event: string, request: ApprovalRequest, extra: Record<string, unknown> = {}): void {
    const b = request.binding;
    this.log?.info(
      {
        audit: {
          event,
          tenant: b.tenant,
          approval: request.id,
          hook: b.hook,
          host: b.host,
          tool: b.tool,
          args_digest: b.argsDigest,
          config_revision: b.configRevision,
          expires_at: b.expiresAt,
          ...extra,
        },
      },
      event,
    );
  }

  private auditOutcome(request: ApprovalRequest, outcome: ApprovalOutcome): void {
    this.audit(`approval ${outcome.decision}`, request, {
      approver: outcome.approver,
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    });
  }
}

function approvalEvent(event: StoreEvent): ApprovalEvent {
  return event.type === 'created'
    ? event
    : { type: 'decided', tenant: event.tenant, id: event.id, outcome: event.outcome };
}

function alreadyRefusal(outcome: ApprovalOutcome): [ApprovalError['code'], string] {
  if (outcome.decision === 'expired') {
    return ['EXPIRED', `the request ended before this decision: ${outcome.reason ?? 'expired'}`];
  }
  return ['ALREADY_DECIDED', `the request was already ${outcome.decision}`];
}

function waiterKey(tenant: string, id: string): string {
  return `${tenant}/${id}`;
}

function splitKey(k: string): [string, string] {
  const i = k.indexOf('/');
  return [k.slice(0, i), k.slice(i + 1)];
}
