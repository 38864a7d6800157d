import type { Transport } from './transport.js';

/** Two linked in-memory transports: what one sends, the other receives (asynchronously, in order). */
export class InMemoryTransport implements Transport {
  onmessage?: (message: string) => void;
  onclose?: (reason?: string) => void;
  onerror?: (error: Error) => void;
  private peer?: InMemoryTransport;
  private closed = false;

  static createLinkedPair(): [InMemoryTransport, InMemoryTransport] {
    const a = new InMemoryTransport();
    const b = new InMemoryTransport();
    a.peer = b;
    b.peer = a;
    return [a, b];
  }

  async start(): Promise<void> {}

  async send(message: string): Promise<void> {
    if (this.closed || !this.peer) throw new Error('transport closed');
    const peer = this.peer;
    queueMicrotask(() => peer.onmessage?.(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const peer = this.peer;
    this.peer = undefined;
    this.onclose?.('closed');
    if (peer) await peer.close();
  }
}
