import { commandAnsweredLabel } from './answered.js';
import type { CommandHost, CommandHostCall } from './host.js';
import { toolVerdict } from './tool-verdict.js';
import { Refusal } from '../../limits/types.js';
import { isPlainObject } from '../../policy/equal.js';
import { Method } from '../../protocol/methods.js';
import type { AdmittedCall } from '../../server/call-request.js';
import { readJsonBody } from '../../server/body.js';
import { ownMcpServerName } from '../claude-code/route.js';
import { documentedBodyViolation } from '../../server/documented-body.js';
import { httpError, rateLimited } from '../../server/errors.js';
import type { Gateway } from '../../server/gateway.js';
import { requestOrigin } from '../shared/request-origin.js';
import { hostAnswerText } from '../../server/host-answer.js';
import { COMMAND_HOST_FIELDS } from '../../server/openapi.js';

/**
 * POST .../{hook}/<dialect> for a host that runs a command per hook event (Codex, Copilot, Gemini;
 * see src/hosts/command/hosts.ts): the host's stdin JSON, as `hookgate hook` forwards it, through
 * the gateway's call path, answered with what the command prints (`{}`: print nothing). As on the
 * other dialect routes, a hook that is down, slow or wrong still gets 200 with its declared failure
 * answer in the host's shape; only what the gateway cannot answer for the hook (not the host's
 * body, over a size or rate limit) gets an HTTP error, and the shim's --fail-closed decides.
 */
export async function answerCommandHost(
  call: AdmittedCall,
  gateway: Gateway,
  host: CommandHost,
): Promise<string> {
  const body = await readJsonBody(call);
  const { hook, requestId } = call;
  const request = host.toHookRequest(body, {
    requestId,
    now: new Date().toISOString(),
    ownMcpServer: ownMcpServerName(hook.name),
  });
  if (request.kind === 'invalid')
    throw httpError(400, 'bad_request', `not a ${host.label} hook call: ${request.why}`);
  // What the document says the route does not take (a field of the wrong type) is refused too.
  const fields = COMMAND_HOST_FIELDS[host.dialect];
  const violation = fields && documentedBodyViolation(fields, body);
  if (violation) throw httpError(400, 'bad_request', `not a ${host.label} hook call: ${violation}`);
  if (request.kind === 'event') {
    gateway.notify(hook, Method.RuntimeEvent, request.params);
    return '{}';
  }
  const origin = requestOrigin(call, {
    dialect: host.dialect,
    hostApproves: host.hostApproves,
    requestId,
    // Audited as what the host gets, not in PicoClaw's terms.
    describeAnswer: (a) => commandAnsweredLabel(host.toHostAnswer(request, a)),
  });
  const result = await gateway.invoke(call.principal, hook, request.method, request.params, origin);
  if (result instanceof Refusal) throw rateLimited(result);
  const approval = await approvalOf(gateway, call, host, request, result);
  const toHost = (a: Record<string, unknown>) => host.toHostAnswer(request, a);
  return hostAnswerText(
    hook,
    request.method,
    () => host.toHostAnswer(request, result, approval),
    toHost,
    host.hostApproves,
  );
}

/**
 * For an event that is also the host's approval (Copilot's preToolUse): the hook's approve_tool
 * answer for the call as it will run, asked only when the hook has the approve mode and its
 * before_tool answer lets the call go on. Its `approved: true` passes only within approve_tools.
 */
async function approvalOf(
  gateway: Gateway,
  call: AdmittedCall,
  host: CommandHost,
  request: CommandHostCall,
  answer: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const { hook } = call;
  if (!request.alsoApproves || !hook.modes.has('approve')) return undefined;
  const verdict = toolVerdict(host.label, request.params.tool, request.toolInput, answer);
  // Blocked, or a rule asks for the person: no approval may skip that.
  if (verdict.kind === 'block' || verdict.kind === 'ask') return undefined;
  const meta = isPlainObject(request.params.meta) ? request.params.meta : {};
  const params = {
    meta: { ...meta, TracePath: 'turn.tool.approve' },
    tool: request.params.tool,
    arguments: verdict.kind === 'rewrite' ? verdict.input : (request.toolInput ?? {}),
  };
  const origin = requestOrigin(call, {
    dialect: host.dialect,
    hostApproves: true,
    requestId: call.requestId,
    describeAnswer: (a) => commandAnsweredLabel(host.toHostAnswer(request, answer, a)),
  });
  const approval = await gateway.invoke(call.principal, hook, Method.ApproveTool, params, origin);
  if (approval instanceof Refusal) throw rateLimited(approval);
  return approval;
}
