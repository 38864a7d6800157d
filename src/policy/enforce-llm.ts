import { continueAnswer } from './answers.js';
import type { DecodedInterceptor } from './decode.js';
import { fillBack, isPlainObject, jsonEqual } from './equal.js';
import type { EffectivePolicy, Enforced, Violation } from './types.js';

/**
 * before_llm: the hook may inject definitions of its own tools, and — only with the matching
 * grants — rewrite non-system messages, the model and options. Host tool definitions, system
 * messages, meta and context always leave as the host sent them.
 *
 * `original` is what the host sent; `shown` is what the hook saw (withheld text blanked).
 */
export function enforceBeforeLlm(
  policy: EffectivePolicy,
  original: Record<string, unknown>,
  shown: Record<string, unknown>,
  answer: DecodedInterceptor,
): Enforced {
  const violations: Violation[] = [];
  const request = answer.request;
  if (!request) return { result: continueAnswer(), violations };

  const out: Record<string, unknown> = { ...original };
  let changed = false;
  const grants = policy.hook.grants;

  for (const key of ['model', 'options'] as const) {
    if (!Object.hasOwn(request, key) || jsonEqual(request[key], shown[key])) continue;
    if (grants.rewriteModel) {
      out[key] = request[key];
      changed = true;
    } else {
      violations.push({ rule: 'rewrite_model_not_granted', detail: `before_llm changed ${key}` });
    }
  }

  if (Array.isArray(request.messages) && !jsonEqual(request.messages, shown.messages)) {
    const merged = mergeMessages(
      asArray(original.messages),
      asArray(shown.messages),
      request.messages,
      grants.rewriteMessages,
      violations,
    );
    if (merged) {
      out.messages = merged;
      changed = true;
    }
  }

  if (Array.isArray(request.tools) && !jsonEqual(request.tools, shown.tools)) {
    const tools = mergeTools(policy, asArray(original.tools), request.tools, violations);
    if (tools) {
      out.tools = tools;
      changed = true;
    }
  }

  if (!changed) return { result: continueAnswer(), violations };
  const result: Record<string, unknown> = { action: answer.action, request: out };
  if (answer.reason) result.reason = answer.reason;
  return { result, violations };
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function isSystem(m: unknown): boolean {
  return isPlainObject(m) && m.role === 'system';
}

/** Returns the new message list, or undefined when the change is refused (the host's list stays). */
function mergeMessages(
  original: unknown[],
  shown: unknown[],
  returned: unknown[],
  granted: boolean,
  violations: Violation[],
): unknown[] | undefined {
  if (!granted) {
    violations.push({ rule: 'rewrite_messages_not_granted', detail: 'before_llm changed messages' });
    return undefined;
  }
  const shownSystem = shown.filter(isSystem);
  const returnedSystem = returned.filter(isSystem);
  if (
    shownSystem.length !== returnedSystem.length ||
    !shownSystem.every((m, i) => jsonEqual(m, returnedSystem[i]))
  ) {
    violations.push({ rule: 'system_messages_changed', detail: 'before_llm changed system messages' });
    return undefined;
  }
  // Align the hook's list with what it was shown: a message it kept as shown is the host's original
  // (with any withheld text restored); anything else is the hook's own edit or addition.
  const out: unknown[] = [];
  let next = 0;
  for (const m of returned) {
    let found = -1;
    for (let k = next; k < shown.length; k++) {
      if (jsonEqual(shown[k], m)) {
        found = k;
        break;
      }
    }
    if (found >= 0) {
      out.push(original[found]);
      next = found + 1;
    } else {
      out.push(m);
    }
  }
  return out;
}

function toolName(def: unknown): string | undefined {
  if (!isPlainObject(def) || !isPlainObject(def.function)) return undefined;
  const n = def.function.name;
  return typeof n === 'string' ? n : undefined;
}

/** Host definitions stay as sent; new ones pass only for tools in the effective list. */
function mergeTools(
  policy: EffectivePolicy,
  original: unknown[],
  returned: unknown[],
  violations: Violation[],
): unknown[] | undefined {
  const hostNames = new Set(original.map(toolName));
  const returnedByName = new Map(returned.map((d) => [toolName(d), d]));
  for (const def of original) {
    const mine = returnedByName.get(toolName(def));
    if (!mine || !jsonEqual(mine, def)) {
      violations.push({
        rule: 'host_tool_definitions_changed',
        tool: toolName(def),
        detail: 'before_llm changed or removed a host tool definition',
      });
    }
  }
  const injected: unknown[] = [];
  for (const def of returned) {
    const name = toolName(def);
    if (hostNames.has(name)) continue;
    if (name !== undefined && policy.tools.has(name)) {
      injected.push(def);
    } else {
      violations.push({
        rule: 'inject_tool_not_granted',
        tool: name,
        detail: 'before_llm injected a tool not granted',
      });
    }
  }
  return injected.length > 0 ? [...original, ...injected] : undefined;
}

/**
 * after_llm: replacing the LLM's output needs `rewrite_llm_response`. The new output sits at
 * `response.response` (the envelope PicoClaw decodes); a flat `response` is ignored by the host,
 * so it is answered with continue.
 */
export function enforceAfterLlm(
  policy: EffectivePolicy,
  original: Record<string, unknown>,
  shown: Record<string, unknown>,
  answer: DecodedInterceptor,
): Enforced {
  const violations: Violation[] = [];
  const inner = isPlainObject(answer.response) ? answer.response.response : undefined;
  const origInner = isPlainObject(original.response) ? original.response : undefined;
  const shownInner = isPlainObject(shown.response) ? shown.response : {};
  if (!isPlainObject(inner) || !origInner || jsonEqual(inner, shownInner)) {
    return { result: continueAnswer(), violations };
  }
  if (!policy.hook.grants.rewriteLlmResponse) {
    violations.push({
      rule: 'rewrite_llm_response_not_granted',
      detail: 'after_llm rewrote the LLM response',
    });
    return { result: continueAnswer(), violations };
  }
  const calls = origInner.tool_calls;
  if (Array.isArray(calls) && calls.some((c) => isPlainObject(c) && !isPlainObject(c.function))) {
    // These tool calls carry their names only in Go-side fields; echoing them back would erase them.
    violations.push({
      rule: 'tool_calls_id_only',
      detail: 'after_llm rewrite would erase id-only tool calls',
    });
    return { result: continueAnswer(), violations };
  }
  const result: Record<string, unknown> = {
    action: answer.action,
    response: { ...original, response: fillBack(origInner, shownInner, inner) },
  };
  if (answer.reason) result.reason = answer.reason;
  return { result, violations };
}
