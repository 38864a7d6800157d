import { ErrorCode, failure, type JsonRpcFailure, type JsonRpcMessage } from '../protocol/jsonrpc.js';

/**
 * What the hook-protocol HTTP route takes beyond a valid JSON-RPC envelope, as its OpenAPI body
 * (JsonRpcMessage) says: a request or notification (the gateway sends no requests over HTTP, so a
 * response has nothing to answer), with a number or string id if any, whose params, when present,
 * are an object (every hook method takes named params). Anything else is the JSON-RPC error the route answers with 400, or
 * undefined when the message is one to handle.
 */
export function notACallOrNotification(message: JsonRpcMessage): JsonRpcFailure | undefined {
  if (!Object.hasOwn(message, 'method')) {
    return failure(null, ErrorCode.InvalidRequest, 'expected a request or a notification (a "method")');
  }
  const { id, params } = message as { id?: unknown; params?: unknown };
  // A null id would make a call a notification (202, no answer); the document says number or string.
  if (id === null) {
    return failure(
      null,
      ErrorCode.InvalidRequest,
      'id must be a number or a string (none for a notification)',
    );
  }
  const echo = typeof id === 'number' || typeof id === 'string' ? id : null;
  if (params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))) {
    return failure(echo, ErrorCode.InvalidParams, 'params must be an object');
  }
  return undefined;
}
