/**
 * The smallest thing that moves JSON-RPC text: one message per `send`, one per `onmessage`.
 * Framing (NDJSON lines, WebSocket frames, HTTP bodies) lives in the implementations.
 * Modelled on the MCP TypeScript SDK's Transport.
 */
export interface Transport {
  start(): Promise<void>;
  send(message: string): Promise<void>;
  close(): Promise<void>;
  onmessage?: (message: string) => void;
  onclose?: (reason?: string) => void;
  onerror?: (error: Error) => void;
}
