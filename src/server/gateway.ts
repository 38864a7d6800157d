import type { Principal } from '../auth/principal.js';
import { BackendError, type HookBackend } from '../backends/types.js';
import type { HookRuntime } from '../config/runtime.js';
import {
  ErrorCode,
  failure,
  isNotification,
  isRequest,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcResponse,
  success,
} from '../protocol/jsonrpc.js';
import {
  type CallMethod,
  isCallMethod,
  isEventMethod,
  Method,
  modeOf,
  PROTOCOL_VERSION,
} from '../protocol/methods.js';
import {
  applyPolicy,
  type CallFacts,
  callRefusal,
  continueAnswer,
  denyApproval,
  type EffectivePolicy,
  effectivePolicy,
  failureAnswer,
  grantCheck,
  type HostTraits,
  minimiseParams,
} from '../policy/index.js';
import type { LimitGate } from '../limits/gate.js';
import { Refusal } from '../limits/types.js';
import { answeredKind, callOutcome, type Decision } from './decision.js';
import { decideByRules, rulesApplyTo } from '../policy/rule-decision.js';
import { askHumanReason, personAnswer } from '../policy/rule-answer.js';
import type { ApprovalBroker } from '../approvals/broker.js';
import { argsDigest } from '../approvals/binding.js';
import type { DecisionLog } from './decision-log.js';
import type { LiveConfig } from './live-config.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';
import { randomUuid } from '../lib/uuid.js';

/** One audit line per policy refusal: who, what, which rule, and what was sent instead. */
export interface AuditEvent {
  decision_id: string;
  tenant: string;
  hook: string;
  method: string;
  tool?: string;
  rule: string;
  detail: string;
  answered: string;
  request_id?: string;
  /** The host protocol the call came in: "picoclaw" on the native routes. */
  dialect: string;
}

/**
 * Where a call came from, as far as the call path needs to know: a label for audit lines and
 * whether the host has an approval of its own (see HostTraits). Host-neutral: a dialect at the edge
 * fills it in; the core never learns a host's names.
 */
export interface CallOrigin extends HostTraits {
  dialect: string;
  requestId?: string;
  /** Told when the call was answered by the hook's failure mode instead of by the hook (MCP says why). */
  observer?: CallObserver;
  /**
   * What the host is sent for an answer, in a few words, for the audit line's `answered`: a dialect
   * whose host gets something other than the PicoClaw answer says what it got (Claude Code gets
   * `{}` for a refused approval, which PicoClaw's terms call `continue`).
   */
  describeAnswer?: (answer: Record<string, unknown>) => string;
  /** The W3C `traceparent` the host sent with the call (a header), if any: the call's parent span. */
  traceparent?: string;
  /**
   * Aborted when the host goes away before its answer (an HTTP client that disconnects): a call
   * held for a person then ends at once instead of at its deadline.
   */
  signal?: AbortSignal;
}

/** What a transport knows about one native call besides the message: see CallOrigin. */
export type CallContextIn = Pick<CallOrigin, 'traceparent' | 'signal'>;

/**
 * Follows each call for tracing: told when the hook is asked (answering the trace context to send
 * it) and when the call's decision is final. Optional; the call path does no tracing work without it.
 */
export interface CallTracer {
  /** The hook is being asked now: the `traceparent` to send it (its span's context), if any. */
  hookStarted(decision: Decision): string | undefined;
  /** The decision is final (every field set): the call's spans can end. */
  decided(decision: Decision): void;
}

/** Told when a call was answered by the hook's failure mode instead of by the hook. */
export interface CallObserver {
  failed(why: string): void;
}

/** The native routes speak PicoClaw's protocol, whose approve_tool is the host's only approval. */
const PICOCLAW = 'picoclaw';

export interface GatewayDeps {
  /** The current config and backends; a reload swaps them under the gateway. */
  live: LiveConfig;
  log: Logger;
  metrics: Metrics;
  /** Tenant and hook limits; consulted only for hooks that have limits. */
  limits?: LimitGate;
  /** Where decision records go (server.decisions); without it none are written. */
  decisions?: DecisionLog;
  /** A person's approval for ask_human rules (docs/approvals.md); without it such calls are denied. */
  approvals?: ApprovalBroker;
  /** Spans per call (server.tracing); without it none are made. */
  tracer?: CallTracer;
}

/** A call's answer as the gateway gives it back: the policy-checked PicoClaw result object. */
type Answer = Record<string, unknown>;

/** Extra time the gateway gives a backend beyond its own deadline before answering for it. */
const GUARD_MS = 50;

/**
 * The transport-independent call path: mode gate → data minimisation → backend (with deadline) →
 * policy → audit. HTTP and WebSocket both end here, so every answer passes the same checks.
 */
export class Gateway {
  private readonly policies = new WeakMap<Principal, Map<HookRuntime, EffectivePolicy>>();
  /** Weak: a hook a reload replaced takes its cached policy and counters with it. */
  private readonly defaultPolicies = new WeakMap<HookRuntime, EffectivePolicy>();
  /** hookgate_calls_total per hook, method and outcome, rendered once rather than per call. */
  private readonly callCounters = new WeakMap<HookRuntime, Map<string, Map<string, (by?: number) => void>>>();
  /** hookgate_call_duration_seconds per hook and method, resolved once like the counters. */
  private readonly callDurations = new WeakMap<HookRuntime, Map<string, (seconds: number) => void>>();
  /** hookgate_decisions_total per hook, dialect and kind, resolved once like the counters. */
  private readonly decisionCounters = new WeakMap<
    HookRuntime,
    Map<string, Map<string, (by?: number) => void>>
  >();
  private closing = false;

  constructor(private readonly deps: GatewayDeps) {}

  hook(tenant: string, hook: string): HookRuntime | undefined {
    return this.deps.live.hook(tenant, hook);
  }

  backendOf(hook: HookRuntime): HookBackend | undefined {
    return this.deps.live.backendOf(hook);
  }

  /** Stop taking new calls (shutdown); calls in flight still finish. */
  drain(): void {
    this.closing = true;
  }

  policyFor(principal: Principal, hook: HookRuntime): EffectivePolicy {
    if (!principal.tools) {
      let p = this.defaultPolicies.get(hook);
      if (!p) {
        p = effectivePolicy(hook);
        this.defaultPolicies.set(hook, p);
      }
      return p;
    }
    let byHook = this.policies.get(principal);
    if (!byHook) {
      byHook = new Map();
      this.policies.set(principal, byHook);
    }
    let p = byHook.get(hook);
    if (!p) {
      p = effectivePolicy(hook, principal.tools);
      byHook.set(hook, p);
    }
    return p;
  }

  /**
   * Answers one message as the JSON text to send, or null for a notification. Never rejects. An
   * answer that cannot be serialised (nested too deep) becomes the method's failure answer, so no
   * transport ever has to deal with it and an approval still leaves as an explicit denial.
   *
   * Waits only where something on the way does (see `call`): hello, events, refusals and a hook
   * that answers at once are answered with a settled promise, and serialising happens here, once.
   */
  respond(
    principal: Principal,
    hook: HookRuntime,
    msg: JsonRpcMessage,
    requestId?: string,
    refusals?: undefined,
    call?: CallContextIn,
  ): Promise<string | null>;
  /**
   * With `refusals: 'return'`, a call refused by a limit comes back as the Refusal instead of its
   * JSON-RPC error, so HTTP can answer 429 with Retry-After.
   */
  respond(
    principal: Principal,
    hook: HookRuntime,
    msg: JsonRpcMessage,
    requestId: string | undefined,
    refusals: 'return',
    call?: CallContextIn,
  ): Promise<string | null | Refusal>;
  respond(
    principal: Principal,
    hook: HookRuntime,
    msg: JsonRpcMessage,
    requestId?: string,
    refusals?: 'return',
    call: CallContextIn = {},
  ): Promise<string | null | Refusal> {
    // Not async, for the same reason as invoke; a throw is still a rejection.
    try {
      const immediate = this.route(principal, hook, msg);
      if (immediate !== undefined) {
        return Promise.resolve(immediate === null ? null : this.serialise(hook, '', immediate));
      }
      const { id, method, params } = msg as {
        id: JsonRpcId;
        method: string;
        params: Record<string, unknown>;
      };
      const result = this.admitted(principal, hook, method, params, new NativeOrigin(requestId, call));
      if (result instanceof Promise) {
        return result.then((settled) => this.answerText(hook, method, id, settled, refusals));
      }
      return Promise.resolve(this.answerText(hook, method, id, result, refusals));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A call's answer as the JSON-RPC text to send, or its Refusal when the caller takes refusals. */
  private answerText(
    hook: HookRuntime,
    method: string,
    id: JsonRpcId,
    result: Answer | Refusal,
    refusals: 'return' | undefined,
  ): string | Refusal {
    if (!(result instanceof Refusal)) return this.serialise(hook, method, success(id, result));
    if (refusals === 'return') return result;
    return JSON.stringify(
      failure(id, ErrorCode.Overloaded, `rate limited (${result.limit})`, {
        retry_after_ms: result.retryAfterMs,
      }),
    );
  }

  /**
   * One hook call for a host dialect: the same call path as `respond` (mode gate, minimisation,
   * limits, backend, policy, audit, metrics), answered with the policy-checked PicoClaw result
   * object for the dialect to translate, or the Refusal of a limit. Never rejects; a gateway that
   * is shutting down answers by the hook's failure mode.
   */
  invoke(
    principal: Principal,
    hook: HookRuntime,
    method: CallMethod,
    params: Record<string, unknown>,
    origin: CallOrigin,
  ): Promise<Record<string, unknown> | Refusal> {
    // Not async: an async function returning admitted's promise would add a layer and resolve a
    // thenable (three more microtask turns per call) for nothing. A throw is still a rejection.
    if (this.closing) {
      const decision = this.startDecision(hook, method, params, origin, principal);
      const answer = failureAnswer(hook, method, 'gateway is shutting down', origin.hostApproves);
      decision.kind = 'failed';
      decision.answer = answer;
      decision.failure = {
        code: 'SHUTTING_DOWN',
        why: 'gateway is shutting down',
        onFailure: hook.onFailure,
      };
      this.decided(hook, decision, origin);
      return Promise.resolve(answer);
    }
    try {
      const result = this.admitted(principal, hook, method, params, origin);
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** True once shutdown began: new calls are refused (see respond's ShuttingDown). */
  get draining(): boolean {
    return this.closing;
  }

  /**
   * Whether the hook may be asked to run one of its own tools on these params (`tool`,
   * `arguments`, `meta`) for this caller (the MCP route, OpenClaw's execute_tool): the tool is among
   * the caller's effective tools and, where its `tools` entries carry conditions, one holds. A
   * refusal is recorded here (see refuseTool) and the hook never sees the call.
   */
  admitsToolCall(
    principal: Principal,
    hook: HookRuntime,
    params: Record<string, unknown>,
    answered: string,
    origin: CallOrigin,
  ): boolean {
    const tool = typeof params.tool === 'string' ? params.tool : '';
    const why = this.policyFor(principal, hook).tools.has(tool)
      ? callRefusal(
          grantCheck(hook, 'respond', callFacts(principal, origin, Date.now(), hook.shadow)),
          tool,
          params,
        )
      : '';
    if (why === undefined) return true;
    this.refuseTool(principal, hook, Method.BeforeTool, tool, answered, origin, why);
    return false;
  }

  /**
   * Records a call refused before it reached the hook because it names a tool outside the caller's
   * effective tools, or one whose `tools` condition does not hold (`why` names the entry): one
   * audit line, the policy refusal counter and the call counter.
   */
  refuseTool(
    principal: Principal,
    hook: HookRuntime,
    method: string,
    tool: string,
    answered: string,
    origin: CallOrigin,
    why = '',
  ): void {
    const detail = why
      ? `tool "${tool}" of hook "${hook.name}" is not granted on this call (${why})`
      : `tool "${tool}" is not among the tools of hook "${hook.name}" this token may use`;
    const decision = this.startDecision(hook, method, { tool }, origin, principal);
    decision.kind = 'refused';
    decision.violations = [{ rule: 'tool_not_granted', tool, detail }];
    decision.answered = answered;
    this.decided(hook, decision, origin);
  }

  /** Hands a runtime event to the hook (observe mode only; dropped and counted otherwise). */
  notify(hook: HookRuntime, method: string, params: unknown): void {
    this.deliverEvent(hook, method, params);
  }

  /**
   * A call past the mode gate and its limits, decided and reported: at once when `call` answers at
   * once (see there), else a promise.
   */
  private admitted(
    principal: Principal,
    hook: HookRuntime,
    method: string,
    params: Record<string, unknown>,
    origin: CallOrigin,
  ): Answer | Promise<Answer | Refusal> {
    const decision = this.startDecision(hook, method, params, origin, principal);
    if (hook.limits !== undefined && this.deps.limits !== undefined) {
      return this.limited(this.deps.limits, principal, hook, method, params, origin, decision);
    }
    const result = this.call(this.policyFor(principal, hook), method, params, origin, decision, principal);
    if (result instanceof Promise)
      return result.then((answer) => this.reported(hook, decision, origin, answer));
    return this.reported(hook, decision, origin, result);
  }

  /** A call's answer once decided: the decision reported, the call timed. */
  private reported(hook: HookRuntime, decision: Decision, origin: CallOrigin, answer: Answer): Answer {
    this.decided(hook, decision, origin);
    this.timeCall(hook, decision.method, decision.totalMs);
    return answer;
  }

  /** `admitted` for a hook with limits: admitted by the limiter first, its slot given back after. */
  private async limited(
    limits: LimitGate,
    principal: Principal,
    hook: HookRuntime,
    method: string,
    params: Record<string, unknown>,
    origin: CallOrigin,
    decision: Decision,
  ): Promise<Answer | Refusal> {
    // The in-process limiter answers synchronously: no extra async step unless the store is remote.
    let admission = limits.acquire(hook, maxCallMs(hook, method));
    if (admission instanceof Promise) admission = await admission;
    // A refused call is not timed; time spent waiting for a shared limiter is (the caller waited too).
    if (admission instanceof Refusal) {
      decision.kind = 'rate_limited';
      decision.limit = { name: admission.limit, retryAfterMs: admission.retryAfterMs };
      decision.answered = 'rate_limited';
      this.decided(hook, decision, origin);
      return admission;
    }
    try {
      const answer = await this.call(
        this.policyFor(principal, hook),
        method,
        params,
        origin,
        decision,
        principal,
      );
      return this.reported(hook, decision, origin, answer);
    } finally {
      limits.release(hook, admission);
    }
  }

  /** The call's decision as the call path starts it: who asked what, under which config. */
  private startDecision(
    hook: HookRuntime,
    method: string,
    params: Record<string, unknown>,
    origin: CallOrigin,
    principal: Principal,
  ): Decision {
    return {
      id: randomUuid(),
      time: Date.now(),
      tenant: hook.tenant,
      hook: hook.name,
      dialect: origin.dialect,
      method,
      tool: typeof params.tool === 'string' ? params.tool : undefined,
      requestId: origin.requestId,
      // Only the tracer reads it, and where it comes from a header, reading it is a lookup.
      traceparent: this.deps.tracer === undefined ? undefined : origin.traceparent,
      tokenTools: principal.tools,
      configRevision: this.deps.live.current.config.revision,
      kind: 'passed',
      params,
      violations: [],
      startedAt: performance.now(),
      hookMs: 0,
      totalMs: 0,
    };
  }

  /**
   * A final decision, read by everything that reports it: the audit lines, hookgate_calls_total,
   * hookgate_decisions_total, the policy refusal counter and the decision record.
   */
  private decided(hook: HookRuntime, decision: Decision, origin: CallOrigin): void {
    decision.totalMs = performance.now() - decision.startedAt;
    const log = this.deps.decisions;
    const recorded = log?.sampled() === true;
    if (
      decision.answered === undefined &&
      (recorded ||
        decision.violations.length > 0 ||
        decision.would !== undefined ||
        decision.rules !== undefined)
    )
      decision.answered = decision.answer ? answeredText(decision.answer, origin) : '';
    if (decision.violations.length > 0) this.audit(decision);
    if (decision.would !== undefined || decision.rules !== undefined) this.auditShadow(decision);
    const outcome = callOutcome(decision);
    if (outcome !== undefined) this.countCall(hook, decision.method, outcome);
    this.countDecision(hook, decision);
    if (recorded) log?.record(decision, log.includesBodies(hook.grants.conversationAccess));
    this.deps.tracer?.decided(decision);
  }

  private countDecision(hook: HookRuntime, decision: Decision): void {
    // Keyed by dialect, then kind: both are constant strings whose hashes V8 keeps, where a key
    // joined from the two would be a new string to hash on every call.
    let byDialect = this.decisionCounters.get(hook);
    if (!byDialect) {
      byDialect = new Map();
      this.decisionCounters.set(hook, byDialect);
    }
    let byKind = byDialect.get(decision.dialect);
    if (!byKind) {
      byKind = new Map();
      byDialect.set(decision.dialect, byKind);
    }
    let inc = byKind.get(decision.kind);
    if (!inc) {
      inc = this.deps.metrics.counter('hookgate_decisions_total', {
        tenant: hook.tenant,
        hook: hook.name,
        dialect: decision.dialect,
        kind: decision.kind,
      });
      byKind.set(decision.kind, inc);
    }
    inc();
  }

  /** The answer to anything that is not a hook call: null for a notification, undefined for a call. */
  private route(
    principal: Principal,
    hook: HookRuntime,
    msg: JsonRpcMessage,
  ): JsonRpcResponse | null | undefined {
    if (isNotification(msg)) {
      this.deliverEvent(hook, msg.method, msg.params);
      return null;
    }
    if (!isRequest(msg))
      return failure(null, ErrorCode.InvalidRequest, 'hookgate accepts requests and notifications only');
    const { id, method } = msg;
    if (this.closing) return failure(id, ErrorCode.ShuttingDown, 'gateway is shutting down');
    if (method === Method.Hello) {
      return success(id, {
        ok: true,
        name: hook.name,
        version: PROTOCOL_VERSION,
        modes: hook.modeList,
        tools: [...this.policyFor(principal, hook).tools],
      });
    }
    if (isEventMethod(method)) {
      this.deliverEvent(hook, method, msg.params);
      return success(id, {});
    }
    if (!isCallMethod(method)) return failure(id, ErrorCode.MethodNotFound, `unknown method ${method}`);
    const params = msg.params;
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      return failure(id, ErrorCode.InvalidParams, `${method} params must be an object`);
    }
    return undefined;
  }

  private serialise(hook: HookRuntime, method: string, response: JsonRpcResponse): string {
    try {
      return JSON.stringify(response);
    } catch (err) {
      this.deps.log.warn(
        { tenant: hook.tenant, hook: hook.name, method, err: String(err) },
        'answer could not be serialised',
      );
      if ('result' in response && isCallMethod(method)) {
        return JSON.stringify(
          success(response.id, failureAnswer(hook, method, 'answer could not be serialised')),
        );
      }
      return JSON.stringify(failure(response.id, ErrorCode.InternalError, 'answer could not be serialised'));
    }
  }

  /**
   * The call's answer: at once when everything on the way answers at once (the mode gate, a rule,
   * a module hook that answers synchronously), else a promise. Each async step costs a suspended
   * frame and a promise per call in flight, so the call path takes one only where something waits.
   */
  private call(
    policy: EffectivePolicy,
    method: string,
    original: Record<string, unknown>,
    origin: CallOrigin,
    decision: Decision,
    principal: Principal,
  ): Answer | Promise<Answer> {
    const hook = policy.hook;
    const mode = modeOf(method);
    if (!mode || !hook.modes.has(mode)) {
      // Never forwarded: the gateway answers as a host without this hook would proceed. PicoClaw
      // reads a missing verdict as a denial, so it gets an explicit one; a host with an approval
      // of its own gets none and asks or denies by itself.
      const answer =
        method === Method.ApproveTool && !origin.hostApproves
          ? denyApproval(`hookgate: hook "${hook.name}" is not granted the approve mode`)
          : continueAnswer();
      decision.kind = 'mode_not_granted';
      decision.violations = [{ rule: 'mode_not_granted', detail: `mode ${mode} not granted` }];
      decision.answer = answer;
      return answer;
    }
    const facts = callFacts(principal, origin, decision.time, hook.shadow);
    if (hook.rules.length > 0 && rulesApplyTo(method)) {
      const ruled = decideByRules(policy, method, original, origin, facts);
      if (ruled) {
        decision.rules = ruled.marks;
        if (ruled.person) {
          const by = `rule "${ruled.person.rule}"`;
          return this.askPerson(hook, method, original, origin, decision, {
            by,
            reason: ruled.person.reason,
          });
        }
        if (ruled.answer) {
          decision.kind = 'ruled';
          decision.violations = ruled.violations;
          decision.answer = ruled.answer;
          return ruled.answer;
        }
      }
    }
    if (hook.backend.type === 'rules') {
      // Nothing to ask: no rule decided, so the answer is the neutral one (an approval is not given).
      const answer =
        method === Method.ApproveTool && !origin.hostApproves
          ? denyApproval(`hookgate: no rule of hook "${hook.name}" approves this call`)
          : continueAnswer();
      decision.answer = answer;
      return answer;
    }
    const live = this.deps.live;
    const backend = live.backendOf(hook);
    const shown = hook.grants.conversationAccess
      ? original
      : (minimiseParams(method, original) as Record<string, unknown>);
    const timeoutMs = method === Method.ApproveTool ? hook.approvalTimeoutMs : hook.timeoutMs;
    const asked = performance.now();
    decision.hookStartedAt = asked;
    // The hook's answer, if it answered at once (callNow); else `later`, the promise of it.
    let now: unknown;
    let later: Promise<unknown> | undefined;
    try {
      if (!backend) throw new BackendError('BACKEND_UNAVAILABLE', 'no backend');
      const traceparent = this.deps.tracer?.hookStarted(decision);
      const ctx = traceparent === undefined ? undefined : { traceparent };
      // Counted, so a backend a reload retires is closed only after its calls are answered.
      live.callStarted(backend);
      try {
        if (backend.callNow) {
          now = backend.callNow(method, shown, timeoutMs, ctx);
          if (now instanceof Promise) later = now;
        } else {
          later = backend.call(method, shown, timeoutMs, ctx);
        }
      } catch (err) {
        live.callEnded(backend);
        throw err;
      }
    } catch (err) {
      decision.hookMs = performance.now() - asked;
      return this.failed(policy, method, err, origin, decision);
    }
    if (later === undefined) {
      live.callEnded(backend);
      return this.hookAnswered(policy, method, original, shown, origin, decision, facts, asked, now);
    }
    // A module backend keeps its own deadline in this process (and aborts the hook's signal at it),
    // and a stdio backend's peer fails every call at its deadline by a timer of its own; an HTTP
    // backend gets a guard in case its I/O never settles. (A second timer and a Promise.race per
    // call showed in profiles of sequential stdio calls.)
    const answered = backend.kind === 'http' ? withDeadline(later, timeoutMs + GUARD_MS) : later;
    return answered.then(
      (raw: unknown) => {
        live.callEnded(backend);
        return this.hookAnswered(policy, method, original, shown, origin, decision, facts, asked, raw);
      },
      (err: unknown) => {
        live.callEnded(backend);
        decision.hookMs = performance.now() - asked;
        return this.failed(policy, method, err, origin, decision);
      },
    );
  }

  /** The rest of a call once its hook answered `raw`: a person asked for, or the policy applied. */
  private hookAnswered(
    policy: EffectivePolicy,
    method: string,
    original: Record<string, unknown>,
    shown: Record<string, unknown>,
    origin: CallOrigin,
    decision: Decision,
    facts: CallFacts,
    asked: number,
    raw: unknown,
  ): Answer | Promise<Answer> {
    const hook = policy.hook;
    decision.hookMs = performance.now() - asked;
    decision.hookAnswer = raw;
    // The hook asks for a person rather than deciding: it never widens anything, a person decides.
    const hookAsks = rulesApplyTo(method) ? askHumanReason(raw) : undefined;
    if (hookAsks !== undefined) {
      return this.askPerson(hook, method, original, origin, decision, {
        by: `hook "${hook.name}"`,
        reason: hookAsks,
      });
    }
    let outcome: ReturnType<typeof applyPolicy>;
    try {
      outcome = applyPolicy(method, policy, original, shown, raw, origin, facts);
    } catch (err) {
      // An answer the checks cannot even walk (e.g. nested deeper than the stack) is a bad answer.
      outcome = {
        ok: false,
        why: `answer could not be checked: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    if (!outcome.ok) {
      return this.failed(
        policy,
        method,
        new BackendError('BACKEND_BAD_REPLY', outcome.why),
        origin,
        decision,
      );
    }
    decision.kind = answeredKind(outcome.violations, outcome.result);
    decision.violations = outcome.violations;
    decision.answer = outcome.result;
    if (facts.would && facts.would.length > 0) decision.would = facts.would;
    return outcome.result;
  }

  /**
   * An ask_human (a rule's, or the hook's own answer): the call is held until a person with the
   * right to approve decides through
   * the gateway's approvals (docs/approvals.md), or the call's own deadline passes. The approval is
   * bound to this call (tenant, hook, host, tool, a digest of the arguments, the config revision)
   * and answers it once. Past the deadline the hook's failure mode answers ("no one approved in
   * time"); a gateway without approvals cannot ask anyone, so the call is denied.
   */
  private async askPerson(
    hook: HookRuntime,
    method: string,
    original: Record<string, unknown>,
    origin: CallOrigin,
    decision: Decision,
    /** Who asks (`rule "x"`, `hook "guard"`), for the audit line; why, for the approver. */
    person: { by: string; reason: string },
  ): Promise<Record<string, unknown>> {
    decision.kind = 'ruled';
    const tool = typeof original.tool === 'string' ? original.tool : '';
    const refuse = (detail: string, answer: Record<string, unknown>) => {
      decision.violations = [{ rule: 'gateway_rule', tool, detail: `${person.by}: ${detail}` }];
      decision.answer = answer;
      return answer;
    };
    const broker = this.deps.approvals;
    if (!broker) {
      const why = 'no one can be asked: this gateway has no approvals';
      return refuse(why, personAnswer(method, { decision: 'denied', reason: why }));
    }
    const timeoutMs = method === Method.ApproveTool ? hook.approvalTimeoutMs : hook.timeoutMs;
    const asked = performance.now();
    const { id, outcome } = broker.ask(
      {
        tenant: hook.tenant,
        hook: hook.name,
        host: origin.dialect,
        tool,
        argsDigest: await argsDigest(original.arguments),
        configRevision: decision.configRevision,
        expiresAt: decision.time + timeoutMs,
      },
      { args: original.arguments, reason: person.reason },
      { signal: origin.signal },
    );
    const done = await outcome;
    decision.approval = {
      id,
      decision: done.decision,
      ...(done.approver !== undefined ? { approver: done.approver } : {}),
      ...(done.reason !== undefined ? { reason: done.reason } : {}),
      waitedMs: performance.now() - asked,
    };
    this.deps.metrics.inc('hookgate_approvals_total', {
      tenant: hook.tenant,
      hook: hook.name,
      decision: done.decision,
    });
    if (done.decision === 'approved') {
      decision.answer = personAnswer(method, done);
      return decision.answer;
    }
    if (done.decision === 'denied') return refuse(`denied by a person`, personAnswer(method, done));
    const why = `no one approved in time${done.reason ? ` (${done.reason})` : ''}`;
    decision.failure = { code: 'APPROVAL_EXPIRED', why, onFailure: hook.onFailure };
    return refuse(why, failureAnswer(hook, method, why, origin.hostApproves));
  }

  /** The call's duration into its histogram: the decision's totalMs, which decided() has just set. */
  private timeCall(hook: HookRuntime, method: string, totalMs: number): void {
    let byMethod = this.callDurations.get(hook);
    if (!byMethod) {
      byMethod = new Map();
      this.callDurations.set(hook, byMethod);
    }
    let observe = byMethod.get(method);
    if (!observe) {
      observe = this.deps.metrics.histogram('hookgate_call_duration_seconds', {
        tenant: hook.tenant,
        hook: hook.name,
        method,
      });
      byMethod.set(method, observe);
    }
    observe(totalMs / 1000);
  }

  private countCall(hook: HookRuntime, method: string, outcome: string): void {
    let byMethod = this.callCounters.get(hook);
    if (!byMethod) {
      byMethod = new Map();
      this.callCounters.set(hook, byMethod);
    }
    let byOutcome = byMethod.get(method);
    if (!byOutcome) {
      byOutcome = new Map();
      byMethod.set(method, byOutcome);
    }
    let inc = byOutcome.get(outcome);
    if (!inc) {
      inc = this.deps.metrics.counter('hookgate_calls_total', {
        tenant: hook.tenant,
        hook: hook.name,
        method,
        outcome,
      });
      byOutcome.set(outcome, inc);
    }
    inc();
  }

  private failed(
    policy: EffectivePolicy,
    method: string,
    err: unknown,
    origin: CallOrigin,
    decision: Decision,
  ): Record<string, unknown> {
    const hook = policy.hook;
    const requestId = origin.requestId;
    const code = err instanceof BackendError ? err.code : 'BACKEND_UNAVAILABLE';
    const why = err instanceof Error ? err.message : String(err);
    this.deps.log.warn(
      {
        tenant: hook.tenant,
        hook: hook.name,
        method,
        code,
        why,
        on_failure: hook.onFailure,
        request_id: requestId,
      },
      'hook failed; answered by its failure mode',
    );
    this.deps.metrics.inc('hookgate_backend_failures_total', { tenant: hook.tenant, hook: hook.name, code });
    const said = code === 'BACKEND_TIMEOUT' ? 'timed out' : 'unavailable or invalid answer';
    origin.observer?.failed(said);
    const answer = failureAnswer(hook, method, said, origin.hostApproves);
    decision.kind = 'failed';
    decision.failure = { code, why, onFailure: hook.onFailure };
    decision.answer = answer;
    return answer;
  }

  private deliverEvent(hook: HookRuntime, method: string, params: unknown): void {
    const labels = { tenant: hook.tenant, hook: hook.name };
    const backend = this.deps.live.backendOf(hook);
    if (!isEventMethod(method) || !hook.modes.has('observe') || !backend) {
      this.deps.metrics.inc('hookgate_events_total', { ...labels, outcome: 'dropped' });
      return;
    }
    const limits = hook.limits === undefined ? undefined : this.deps.limits;
    if (limits !== undefined) {
      // Over a limit an event is dropped (and counted): the host never waits for events.
      const admitted = limits.admitEvent(hook);
      if (admitted instanceof Promise) {
        admitted.then((ok) => this.eventAdmitted(ok, backend, hook, method, params));
        return;
      }
      this.eventAdmitted(admitted, backend, hook, method, params);
      return;
    }
    this.eventAdmitted(true, backend, hook, method, params);
  }

  private eventAdmitted(
    admitted: boolean,
    backend: HookBackend,
    hook: HookRuntime,
    method: string,
    params: unknown,
  ): void {
    const labels = { tenant: hook.tenant, hook: hook.name };
    if (!admitted) {
      this.deps.metrics.inc('hookgate_events_total', { ...labels, outcome: 'rate_limited' });
      return;
    }
    // PicoClaw sends hook.runtime_event; older hosts sent hook.event. Backends get what they were
    // sent, less the conversation text unless granted (as for calls).
    backend.notify(method, hook.grants.conversationAccess ? params : minimiseParams(method, params));
    this.deps.metrics.inc('hookgate_events_total', { ...labels, outcome: 'delivered' });
  }

  /**
   * One line per thing shadow mode would have done (a shadow rule that applied, a grant condition
   * that would have refused), with everything an enforcing refusal logs; nothing was changed.
   */
  private auditShadow(decision: Decision): void {
    const would = [
      ...(decision.rules ?? [])
        .filter((r) => r.effect === 'would')
        .map((r) => ({
          rule: `rule:${r.name}`,
          detail: `would ${r.action}: rule "${r.name}" (${r.path})${r.error ? ` failed: ${r.error}` : ''}`,
        })),
      ...(decision.would ?? []).map((detail) => ({ rule: 'grant_condition', detail })),
    ];
    for (const w of would) {
      this.deps.log.warn(
        {
          audit: {
            decision_id: decision.id,
            tenant: decision.tenant,
            hook: decision.hook,
            method: decision.method,
            tool: decision.tool,
            rule: w.rule,
            detail: w.detail,
            answered: decision.answered ?? '',
            request_id: decision.requestId,
            dialect: decision.dialect,
            shadow: true,
          },
        },
        'policy shadow: would have refused',
      );
      this.deps.metrics.inc('hookgate_shadow_decisions_total', {
        tenant: decision.tenant,
        hook: decision.hook,
        rule: w.rule,
      });
    }
  }

  /** One audit line per violation, each naming the call's decision: read off the decision itself. */
  private audit(decision: Decision): void {
    for (const v of decision.violations) {
      const event: AuditEvent = {
        decision_id: decision.id,
        tenant: decision.tenant,
        hook: decision.hook,
        method: decision.method,
        tool: v.tool ?? decision.tool,
        rule: v.rule,
        detail: v.detail,
        answered: decision.answered ?? '',
        request_id: decision.requestId,
        dialect: decision.dialect,
      };
      this.deps.log.warn({ audit: event }, 'policy refusal');
      this.deps.metrics.inc('hookgate_policy_refusals_total', {
        tenant: decision.tenant,
        hook: decision.hook,
        rule: v.rule,
      });
    }
  }
}

/**
 * Where a native call came from. Its `signal` is read from the transport's call context only when
 * something needs it (a call held for a person): an HTTP request's AbortSignal is made when first
 * read, and making one costs about 2 µs in Node, more than all of a small call's bookkeeping. A
 * class, so the lazy read costs no accessor per call.
 */
class NativeOrigin implements CallOrigin {
  readonly dialect = PICOCLAW;

  constructor(
    readonly requestId: string | undefined,
    private readonly call: CallContextIn,
  ) {}

  get signal(): AbortSignal | undefined {
    return this.call.signal;
  }

  get traceparent(): string | undefined {
    return this.call.traceparent;
  }
}

const NO_CLAIMS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * What conditions see of a call besides its params: the host, the token's claims, the time; for
 * a hook in shadow mode, where its grant conditions write what they would have refused.
 */
function callFacts(principal: Principal, origin: CallOrigin, now: number, shadow = false): CallFacts {
  const facts: CallFacts = { host: origin.dialect, claims: principal.claims ?? NO_CLAIMS, now };
  if (shadow) facts.would = [];
  return facts;
}

/** The audit's `answered` for an answer: what the host was sent, when its dialect says. */
function answeredText(answer: Record<string, unknown>, origin: CallOrigin): string {
  if (origin.describeAnswer) {
    try {
      return origin.describeAnswer(answer);
    } catch {
      // An answer the dialect cannot convert is answered by the failure mode: say it in PicoClaw's terms.
    }
  }
  return 'approved' in answer ? `approved:${answer.approved}` : String(answer.action);
}

/** The longest a call can take before the gateway answers for it: its deadline plus the guard. */
function maxCallMs(hook: HookRuntime, method: string): number {
  return (method === Method.ApproveTool ? hook.approvalTimeoutMs : hook.timeoutMs) + GUARD_MS;
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BackendError('BACKEND_TIMEOUT', `no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, guard]).finally(() => clearTimeout(timer));
}
