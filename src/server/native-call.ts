import { rememberParamsText } from '../core/params-text.js';
import { notACallOrNotification } from './call-envelope.js';
import type { AdmittedCall, CallAnswer } from './call-request.js';
import { jsonResponse, rateLimited } from './errors.js';
import type { Gateway } from './gateway.js';
import { parseCallMessage } from './parse-call.js';

/**
 * POST /v1/tenants/{tenant}/hooks/{hook}: one message of the hook protocol (PicoClaw's) through the
 * gateway's call path. Answers the JSON-RPC answer (200), nothing for a notification (202), or a 400
 * for a message the route does not take, with the JSON-RPC error as its body (as /mcp answers). A
 * call refused by a limit rejects with its 429.
 */
export async function answerNativeCall(call: AdmittedCall, gateway: Gateway): Promise<CallAnswer> {
  const text = await call.text();
  const { hook } = call;
  const parsed = parseCallMessage(text, hook);
  if (!parsed.ok) return jsonResponse(parsed.response, 400);
  const refused = notACallOrNotification(parsed.message);
  if (refused) return jsonResponse(refused, 400);
  // A stdio hook gets these params as the client wrote them if nothing changes them on the way.
  rememberParamsText(parsed.message, text);
  const response = await gateway.respond(
    call.principal,
    hook,
    parsed.message,
    call.requestId,
    'return',
    call,
  );
  if (response !== null && typeof response !== 'string') throw rateLimited(response);
  return response;
}
