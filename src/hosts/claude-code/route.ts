import { answeredLabel, DIALECT, type RequestOptions, toHookRequest, toHostAnswer } from './index.js';
import { Refusal } from '../../limits/types.js';
import { Method } from '../../protocol/methods.js';
import type { AdmittedCall } from '../../server/call-request.js';
import { readJsonBody } from '../../server/body.js';
import { httpError, rateLimited } from '../../server/errors.js';
import { ClaudeCodeHookFields } from '../../server/openapi.js';
import { documentedBodyViolation } from '../../server/documented-body.js';
import type { Gateway } from '../../server/gateway.js';
import { requestOrigin } from '../shared/request-origin.js';
import { hostAnswerText } from '../../server/host-answer.js';
import { ROUTE_HOST_TRAITS } from '../traits.js';

/**
 * The name this hook's own MCP route is registered under in Claude Code's settings; its tools then
 * arrive as `mcp__hookgate-<hook>__<tool>` and are matched by their bare names.
 */
export function ownMcpServerName(hook: string): string {
  return `hookgate-${hook}`;
}

/**
 * The translator's options for one call. A class whose getters run only when the translator reads
 * them: the clock only for the runtime events that carry a time (a tool call has none), the MCP
 * server name only for an `mcp__` tool. A getter on a prototype costs nothing per call, where an
 * object literal with getters or closures would (tsx wraps each named arrow in a `defineProperty`).
 */
class CallOptions implements RequestOptions {
  constructor(
    readonly requestId: string,
    private readonly hookName: string,
  ) {}
  get now(): string {
    return new Date().toISOString();
  }
  get ownMcpServer(): string {
    return ownMcpServerName(this.hookName);
  }
}

/**
 * POST .../{hook}/claude-code: one Claude Code HTTP-hook call (any event) through the gateway's
 * call path, answered in Claude Code's shapes. Claude Code ignores the body of a non-2xx answer
 * and fails open on it unless the handler says `onFailure: "block"`, so an authenticated call
 * whose hook is down, slow or wrong still gets 200 with the hook's declared failure answer. Only
 * what the gateway cannot answer for the hook (a body that is not Claude Code's, over the size
 * limit, over a rate limit) gets an HTTP error, and the handler's onFailure decides.
 */
export async function answerClaudeCode(call: AdmittedCall, gateway: Gateway): Promise<string> {
  const body = await readJsonBody(call);
  const { hook, requestId } = call;
  const request = toHookRequest(body, new CallOptions(requestId, hook.name));
  if (request.kind === 'invalid')
    throw httpError(400, 'bad_request', `not a Claude Code hook call: ${request.why}`);
  const violation = documentedBodyViolation(ClaudeCodeHookFields, body);
  if (violation) throw httpError(400, 'bad_request', `not a Claude Code hook call: ${violation}`);
  if (request.kind === 'event') {
    gateway.notify(hook, Method.RuntimeEvent, request.params);
    return '{}';
  }
  const origin = requestOrigin(call, {
    dialect: DIALECT,
    ...ROUTE_HOST_TRAITS[DIALECT],
    requestId,
    // Audited as what Claude Code gets (a refused approval is `{}` there), not in PicoClaw's terms.
    describeAnswer: (a) => answeredLabel(toHostAnswer(request, a)),
  });
  const result = await gateway.invoke(call.principal, hook, request.method, request.params, origin);
  if (result instanceof Refusal) throw rateLimited(result);
  return hostAnswerText(
    hook,
    request.method,
    () => toHostAnswer(request, result),
    (a) => toHostAnswer(request, a),
    origin.hostApproves,
  );
}
