import { isPending, oldestFirst, settleEntry } from './settle.js';
import type { ApprovalStore, SettleResult, StoreEvent, StoredApproval } from './store.js';
import type { ApprovalOutcome, ApprovalRequest } from './types.js';

/** How long a settled request is remembered, so a late decider hears ALREADY_DECIDED, not NOT_FOUND. */
export const SETTLED_RETENTION_MS = 10 * 60_000;

/**
 * Requests in this process only: one gateway, or a Worker isolate. Replicas that must share
 * requests use a shared store (Redis on Node). Operations are atomic because nothing here awaits
 * between reading and writing.
 */
export class MemoryApprovalStore implements ApprovalStore {
  private readonly entries = new Map<string, StoredApproval & { forgetAt?: number }>();
  private readonly listeners = new Set<(event: StoreEvent) => void>();

  async create(request: ApprovalRequest): Promise<void> {
    this.entries.set(key(request.binding.tenant, request.id), { request });
    this.emit({ type: 'created', request });
  }

  async get(tenant: string, id: string): Promise<StoredApproval | undefined> {
    const entry = this.entries.get(key(tenant, id));
    return entry && { request: entry.request, outcome: entry.outcome };
  }

  async settle(tenant: string, id: string, outcome: ApprovalOutcome, now: number): Promise<SettleResult> {
    this.forgetSettled(now);
    const entry = this.entries.get(key(tenant, id));
    const result = settleEntry(entry, outcome, now);
    if (result.kind !== 'written' || !entry) return result;
    entry.outcome = result.outcome;
    entry.forgetAt = now + SETTLED_RETENTION_MS;
    this.emit({ type: 'settled', tenant, id, outcome: result.outcome });
    return result;
  }

  async pending(tenant: string, now: number): Promise<ApprovalRequest[]> {
    const out: ApprovalRequest[] = [];
    for (const entry of this.entries.values()) {
      if (entry.request.binding.tenant === tenant && isPending(entry, now)) out.push(entry.request);
    }
    return oldestFirst(out);
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private emit(event: StoreEvent): void {
    for (const l of this.listeners) l(event);
  }

  /** Settled requests are dropped after the retention; a pending one always lives until settled. */
  private forgetSettled(now: number): void {
    for (const [k, entry] of this.entries) {
      if (entry.forgetAt !== undefined && entry.forgetAt <= now) this.entries.delete(k);
    }
  }
}

function key(tenant: string, id: string): string {
  return `${tenant}/${id}`;
}
