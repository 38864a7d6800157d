/**
 * JSON-RPC 2.0 envelope as PicoClaw speaks it. Ids are host-allocated integers on the PicoClaw wire,
 * but hookgate accepts any JSON-RPC id from HTTP/WS clients and echoes it back untouched.
 */

import { firstJsonChar } from '../core/json-array-count.js';
import { lazyMessage } from '../core/lazy-params.js';

export type JsonRpcId = number | string;

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: JsonRpcId;
  method: string;
  params?: unknown;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: '2.0';
  id: JsonRpcId;
  result: unknown;
}

export interface JsonRpcFailure {
  jsonrpc: '2.0';
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Standard codes plus the ones hookgate adds in the implementation-defined range. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** The hook backend failed (down, crashed, timed out, garbage) and no fallback applied. */
  BackendError: -32000,
  /** Too many calls in flight on one connection. */
  Overloaded: -32001,
  /** The gateway is shutting down. */
  ShuttingDown: -32002,
} as const;

// Own properties only, here and below: these objects come from the wire.
const has = (o: object, key: string) => Object.hasOwn(o, key);

export function isRequest(m: JsonRpcMessage): m is JsonRpcRequest {
  return (
    has(m, 'method') &&
    has(m, 'id') &&
    (m as JsonRpcRequest).id !== undefined &&
    (m as JsonRpcRequest).id !== null
  );
}

export function isNotification(m: JsonRpcMessage): m is JsonRpcNotification {
  const id = (m as { id?: unknown }).id;
  return has(m, 'method') && (!has(m, 'id') || id === undefined || id === null);
}

export function isResponse(m: JsonRpcMessage): m is JsonRpcResponse {
  return !has(m, 'method') && (has(m, 'result') || has(m, 'error'));
}

export function success(id: JsonRpcId, result: unknown): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result };
}

export function failure(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcFailure {
  const error: JsonRpcErrorObject = { code, message };
  if (data !== undefined) error.data = data;
  return { jsonrpc: '2.0', id, error };
}

export type ParseOutcome = { ok: true; message: JsonRpcMessage } | { ok: false; response: JsonRpcFailure };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function validId(id: unknown): id is JsonRpcId {
  return (typeof id === 'number' && Number.isFinite(id)) || typeof id === 'string';
}

export interface EnvelopeOptions {
  /**
   * Take responses that leave out `"jsonrpc":"2.0"` (or carry another value). PicoClaw never checks
   * the field on a hook's reply, so hooks written against it may omit it; a caller of such hooks
   * must accept what PicoClaw accepts. Requests and notifications still need it.
   */
  lenientResponses?: boolean;
}

/**
 * Checks an already-parsed value against the JSON-RPC 2.0 envelope. Hand-written rather than zod:
 * it runs on every message, and the checks are few.
 */
export function validateEnvelope(value: unknown, options: EnvelopeOptions = {}): ParseOutcome {
  if (!isObject(value)) {
    return {
      ok: false,
      response: failure(null, ErrorCode.InvalidRequest, 'a JSON-RPC message must be an object'),
    };
  }
  const id = value.id;
  const echoId = validId(id) ? id : null;
  const isCall = has(value, 'method');
  if (value.jsonrpc !== '2.0' && (isCall || !options.lenientResponses)) {
    return { ok: false, response: failure(echoId, ErrorCode.InvalidRequest, 'jsonrpc must be "2.0"') };
  }
  if (isCall) {
    if (typeof value.method !== 'string' || value.method.length === 0) {
      return {
        ok: false,
        response: failure(echoId, ErrorCode.InvalidRequest, 'method must be a non-empty string'),
      };
    }
    if (id !== undefined && id !== null && !validId(id)) {
      return {
        ok: false,
        response: failure(null, ErrorCode.InvalidRequest, 'id must be a number or a string'),
      };
    }
    if (
      has(value, 'params') &&
      value.params !== undefined &&
      !isObject(value.params) &&
      !Array.isArray(value.params)
    ) {
      return {
        ok: false,
        response: failure(echoId, ErrorCode.InvalidRequest, 'params must be an object or an array'),
      };
    }
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }
  if (has(value, 'result') || (has(value, 'error') && isObject(value.error))) {
    if (!validId(id) && id !== null) {
      return { ok: false, response: failure(null, ErrorCode.InvalidRequest, 'a response needs an id') };
    }
    return { ok: true, message: value as unknown as JsonRpcMessage };
  }
  return {
    ok: false,
    response: failure(echoId, ErrorCode.InvalidRequest, 'not a request, notification or response'),
  };
}

export interface ParseOptions {
  /**
   * A large request's params may come back with their members parsed on first read (see
   * core/lazy-params.ts). For the gateway's edges, whose call path reads params only where a
   * check needs them; not for a hook's own code, which may look at property descriptors.
   */
  lazyParams?: boolean;
}

/**
 * Parses one message from text. Never throws. A batch (a JSON array) is refused before it is
 * parsed: it would be refused after, and parsing megabytes of small objects only to refuse them
 * blocks the event loop.
 */
export function parseMessage(text: string, options?: ParseOptions): ParseOutcome {
  if (firstJsonChar(text) === '[') {
    return {
      ok: false,
      response: failure(null, ErrorCode.InvalidRequest, 'a JSON-RPC message must be an object (no batches)'),
    };
  }
  let value: unknown = options?.lazyParams === true ? lazyMessage(text) : undefined;
  if (value === undefined) {
    try {
      value = JSON.parse(text);
    } catch {
      return { ok: false, response: failure(null, ErrorCode.ParseError, 'message is not valid JSON') };
    }
  }
  return validateEnvelope(value);
}
