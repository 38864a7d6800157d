import { DIALECT, hermesMcpServerName, toHookRequest, toHostAnswer } from './index.js';
import { Refusal } from '../../limits/types.js';
import { Method } from '../../protocol/methods.js';
import type { AdmittedCall } from '../../server/call-request.js';
import { readJsonBody } from '../../server/body.js';
import { httpError, rateLimited } from '../../server/errors.js';
import { HermesHookFields } from '../../server/openapi.js';
import { documentedBodyViolation } from '../../server/documented-body.js';
import type { Gateway } from '../../server/gateway.js';
import { requestOrigin } from '../shared/request-origin.js';
import { hostAnswerText } from '../../server/host-answer.js';
import { ROUTE_HOST_TRAITS } from '../traits.js';

/**
 * POST .../{hook}/hermes: one Hermes shell-hook payload (any event, as `hookgate hermes-hook`
 * forwards it) through the gateway's call path, answered with what the shell hook prints. An
 * authenticated call whose hook is down, slow or wrong gets 200 with the hook's declared failure
 * answer in Hermes's shape; only what the gateway cannot answer for the hook (a body that is not
 * Hermes's, over the size limit, over a rate limit) gets an HTTP error, and the shell hook's
 * fail-closed setting decides.
 */
export async function answerHermes(call: AdmittedCall, gateway: Gateway): Promise<string> {
  const body = await readJsonBody(call);
  const { hook, requestId } = call;
  const request = toHookRequest(body, {
    requestId,
    now: new Date().toISOString(),
    ownMcpServer: hermesMcpServerName(hook.name),
    ownTools: hook.tools,
  });
  if (request.kind === 'invalid')
    throw httpError(400, 'bad_request', `not a Hermes hook call: ${request.why}`);
  const violation = documentedBodyViolation(HermesHookFields, body);
  if (violation) throw httpError(400, 'bad_request', `not a Hermes hook call: ${violation}`);
  if (request.kind === 'event') {
    gateway.notify(hook, Method.RuntimeEvent, request.params);
    return '{}';
  }
  // Hermes has no approval a verdict could skip, and merges a rewrite into the arguments.
  const origin = requestOrigin(call, { dialect: DIALECT, ...ROUTE_HOST_TRAITS[DIALECT], requestId });
  const result = await gateway.invoke(call.principal, hook, request.method, request.params, origin);
  if (result instanceof Refusal) throw rateLimited(result);
  const access = hook.grants.conversationAccess;
  const toHost = (a: Record<string, unknown>) => toHostAnswer(request, a, access);
  return hostAnswerText(hook, request.method, () => toHost(result), toHost);
}
