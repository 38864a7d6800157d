/**
 * The smallest thing that moves JSON-RPC text: one message per `send`, one per `onmessage`.
 * Framing (NDJSON lines, WebSocket frames, HTTP bodies) lives in the implementations.
 * Modelled on the MCP TypeScript SDK's Transport.
 */
/**
 * What `send` may return when the message was handed over at once and cannot fail later (a stdio
 * hook's stdin with room in it): the caller then has nothing to wait for or catch, and skips the
 * promise and the turn a handler on it would cost per call.
 */
export const SENT: Promise<void> = Promise.resolve();

export interface Transport {
  start(): Promise<void>;
  /**
   * `timeoutMs`: how long the sender waits for an answer; a transport that queues may drop the
   * message (and reject) if it is still queued by then, since nobody waits for it any more.
   */
  send(message: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: string) => void;
  onclose?: (reason?: string) => void;
  onerror?: (error: Error) => void;
}
