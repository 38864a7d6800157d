import type { HookRuntime } from '../../config/runtime.js';
import {
  approvalAnswer,
  DIALECT,
  errorResult,
  type HookRequest,
  type OpenClawToolResult,
  toHookRequest,
  toHostAnswer,
  toToolResult,
} from './index.js';
import { Refusal } from '../../limits/types.js';
import { isPlainObject } from '../../policy/equal.js';
import type { Principal } from '../../auth/principal.js';
import { type CallMethod, Method } from '../../protocol/methods.js';
import type { AdmittedCall } from '../../server/call-request.js';
import { readJsonBody } from '../../server/body.js';
import { httpError, rateLimited } from '../../server/errors.js';
import { OpenClawHookFields } from '../../server/openapi.js';
import { documentedBodyViolation } from '../../server/documented-body.js';
import type { CallOrigin, Gateway } from '../../server/gateway.js';
import { requestOrigin } from '../shared/request-origin.js';
import { hostAnswerText } from '../../server/host-answer.js';
import { ROUTE_HOST_TRAITS } from '../traits.js';

type Call = Extract<HookRequest, { kind: 'call' }>;
type Execute = Extract<HookRequest, { kind: 'execute' }>;

/**
 * POST .../{hook}/openclaw: one OpenClaw plugin-hook call, forwarded by the hookgate OpenClaw
 * plugin as `{hook, event, ctx}`, through the gateway's call path and answered with what the
 * plugin's handler returns to OpenClaw. As on the Claude Code route, an authenticated call whose
 * hook is down, slow or wrong gets 200 with the hook's declared failure answer in OpenClaw's shape;
 * only what the gateway cannot answer for the hook (a body that is not the plugin's, over the size
 * limit, over a rate limit) gets an HTTP error, which the plugin turns into a block naming it.
 *
 * OpenClaw has no approval a hook could answer for it (its exec approvals apply after every hook),
 * so the origin has no host approval: approve_tool is asked, after before_tool, only of a hook with
 * the approve mode, and only its refusal matters.
 */
export async function answerOpenClaw(call: AdmittedCall, gateway: Gateway): Promise<string> {
  const body = await readJsonBody(call);
  const { hook, requestId, principal } = call;
  const request = toHookRequest(body, { requestId, now: new Date().toISOString() });
  if (request.kind === 'invalid')
    throw httpError(400, 'bad_request', `not an OpenClaw hook call: ${request.why}`);
  const violation = documentedBodyViolation(OpenClawHookFields, body);
  if (violation) throw httpError(400, 'bad_request', `not an OpenClaw hook call: ${violation}`);
  if (request.kind === 'event') {
    gateway.notify(hook, Method.RuntimeEvent, request.params);
    return '{}';
  }
  // The plugin gives up at its own timeout (under OpenClaw's 15 s hook budget) and cuts the
  // request: a call held for a person then ends at once instead of at the hook's deadline.
  const origin = requestOrigin(call, { dialect: DIALECT, ...ROUTE_HOST_TRAITS[DIALECT], requestId });
  if (request.kind === 'execute') {
    return JSON.stringify(await executeTool(gateway, principal, hook, request, origin));
  }
  const toHost = (a: Record<string, unknown>) => toHostAnswer(request, a);
  if (request.hook === 'before_tool_call') {
    const out = await beforeToolCall(gateway, principal, hook, request, origin);
    return hostAnswerText(hook, request.method, () => out, toHost);
  }
  const result = await invoke(gateway, principal, hook, request.method, request.params, origin);
  return hostAnswerText(hook, request.method, () => toHost(result), toHost);
}

/**
 * OpenClaw runs one of the hook's own tools (registered by the plugin): hook.before_tool, and its
 * `respond` is the result. A tool outside the caller's effective tools never reaches the hook and
 * is audited, with the same answer whether the hook lacks it or this token may not use it. The
 * `respond` grant is the usual one (the hook's own `tools`); no host approval is skipped, since
 * OpenClaw applies its tool policy to a plugin tool before it runs.
 */
async function executeTool(
  gateway: Gateway,
  principal: Principal,
  hook: HookRuntime,
  request: Execute,
  origin: CallOrigin,
): Promise<OpenClawToolResult> {
  // A `tools` entry's condition is checked here too, on the arguments OpenClaw would run.
  if (!gateway.admitsToolCall(principal, hook, request.params, 'error:unknown_tool', origin)) {
    return errorResult(`Unknown tool: ${request.tool}`);
  }
  let failure: string | undefined;
  // Set on this call's own origin, not spread into a copy: the request's abort signal is a getter
  // of the origin's class, which a spread would leave behind.
  origin.observer = {
    failed(why) {
      failure = why;
    },
  };
  const result = await gateway.invoke(principal, hook, Method.BeforeTool, request.params, origin);
  if (result instanceof Refusal) throw rateLimited(result);
  return toToolResult(hook.name, request.tool, result, failure);
}

async function invoke(
  gateway: Gateway,
  principal: Principal,
  hook: HookRuntime,
  method: CallMethod,
  params: Record<string, unknown>,
  origin: CallOrigin,
): Promise<Record<string, unknown>> {
  const result = await gateway.invoke(principal, hook, method, params, origin);
  if (result instanceof Refusal) throw rateLimited(result);
  return result;
}

/**
 * before_tool (tool mode), then approve_tool on the arguments that would run (approve mode), as
 * PicoClaw asks them in turn. A hook with neither mode is still asked before_tool, so the call is
 * answered and audited as on the other routes (mode not granted → no objection).
 */
async function beforeToolCall(
  gateway: Gateway,
  principal: Principal,
  hook: HookRuntime,
  request: Call,
  origin: CallOrigin,
): Promise<Record<string, unknown>> {
  const approves = hook.modes.has('approve');
  let out: Record<string, unknown> = {};
  if (hook.modes.has('tool') || !approves) {
    out = toHostAnswer(
      request,
      await invoke(gateway, principal, hook, Method.BeforeTool, request.params, origin),
    );
    if (out.block === true || !approves) return out;
  }
  const meta = isPlainObject(request.params.meta) ? request.params.meta : {};
  const approval = await invoke(
    gateway,
    principal,
    hook,
    Method.ApproveTool,
    {
      ...request.params,
      meta: { ...meta, TracePath: 'turn.tool.approve' },
      arguments: isPlainObject(out.params) ? out.params : (request.toolParams ?? {}),
    },
    origin,
  );
  return approvalAnswer(approval) ?? out;
}
