import { z } from 'zod';
import {
  type HookCallContext,
  type HookObject,
  HookContext,
  hookObjectMethod,
  isThenable,
} from '../protocol/hook-object.js';
import { ErrorCode } from '../protocol/jsonrpc.js';
import { type ApprovalResult, type InterceptorResult, Method } from '../protocol/methods.js';
import type { ToolDefinition } from '../protocol/tool-definition.js';

export type { HookCallContext, HookObject } from '../protocol/hook-object.js';

/** PicoClaw's ToolResult as a hook may send it (section 4.3 of the protocol notes). */
export interface ToolResult {
  for_llm: string;
  for_user?: string;
  silent?: boolean;
  is_error?: boolean;
  async?: boolean;
  media?: string[];
  artifact_tags?: string[];
  response_handled?: boolean;
}

/** What a tool handler may return: the text for the LLM, or a (partial) ToolResult. */
export type ToolReturn = string | Partial<ToolResult>;

export interface ToolCallContext extends HookCallContext {
  /** The whole `hook.before_tool` params (meta, context, tool, arguments). */
  call: Record<string, any>;
}

export interface HookTool<S extends z.ZodObject = z.ZodObject> {
  /** The function name the LLM calls; also what a gateway grant must list. */
  name: string;
  description: string;
  parameters: S;
  handler(args: z.output<S>, ctx: ToolCallContext): ToolReturn | Promise<ToolReturn>;
}

type HookFn<P = any, R = unknown> = (params: P, ctx: HookCallContext) => R | Promise<R>;

export interface HookDefinition<S extends readonly z.ZodObject[] = z.ZodObject[]> {
  name: string;
  tools?: { [K in keyof S]: HookTool<S[K]> };
  /** Add the declared tools' definitions in before_llm (default true). */
  injectTools?: boolean;
  beforeLlm?: HookFn<any, InterceptorResult | undefined>;
  afterLlm?: HookFn<any, InterceptorResult | undefined>;
  beforeTool?: HookFn<any, InterceptorResult | undefined>;
  afterTool?: HookFn<any, InterceptorResult | undefined>;
  /** `true`/`false` is shorthand for `{ approved }`. */
  approveTool?: HookFn<any, ApprovalResult | boolean | undefined>;
  onEvent?: HookFn<any, void>;
}

/** Identity helper that types a tool on its own (handy when tools live in separate modules). */
export function defineTool<S extends z.ZodObject>(tool: HookTool<S>): HookTool<S> {
  return tool;
}

/** A fresh object each time: callers (the gateway's policy) may rewrite answers in place. */
const CONTINUE = (): InterceptorResult => ({ action: 'continue' });
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Builds a HookObject. Declared tools get injection (before_llm) and `respond` (before_tool) for
 * free; methods not given answer `continue`. approveTool stays absent unless given, so a gateway
 * applies its own approval rule instead of a silent yes or no from here.
 */
export function defineHook<const S extends readonly z.ZodObject[]>(
  definition: HookDefinition<S>,
): HookObject {
  if (typeof definition?.name !== 'string' || definition.name.length === 0) {
    throw new TypeError('defineHook: name must be a non-empty string');
  }
  const tools = new Map<string, HookTool>();
  const definitions: ToolDefinition[] = [];
  for (const tool of (definition.tools ?? []) as readonly HookTool[]) {
    definitions.push(toolDefinition(tool, tools));
    tools.set(tool.name, tool);
  }
  const inject = definition.injectTools !== false && definitions.length > 0;
  const user = definition;

  // No method here is async of itself: a hook whose own code answers synchronously is answered
  // synchronously, so a gateway hosting it in process needs no promise, microtask turns or deadline
  // timer for the call (see backends/module.ts).
  const hook: HookObject = {
    name: definition.name,
    // Declared up front too, so a gateway hosting this hook in process (the MCP route) need not
    // ask before_llm for them.
    tools: Object.freeze(definitions),
    beforeLlm(params, ctx) {
      return andThen(user.beforeLlm?.(params, ctx), (answer) => {
        const result = answer ?? CONTINUE();
        return inject ? injectTools(params, result, definitions) : result;
      });
    },
    afterLlm: (params, ctx) => orContinue(user.afterLlm?.(params, ctx)),
    beforeTool(params, ctx) {
      const tool = tools.get(params?.tool);
      if (tool) return andThen(runTool(tool, params, ctx), respondWith);
      return orContinue(user.beforeTool?.(params, ctx));
    },
    afterTool: (params, ctx) => orContinue(user.afterTool?.(params, ctx)),
  };
  const approve = user.approveTool;
  if (approve) {
    hook.approveTool = (params, ctx) =>
      andThen(approve(params, ctx), (answer) => {
        if (typeof answer === 'boolean') return { approved: answer };
        // PicoClaw reads a missing `approved` as a denial; say so explicitly.
        return answer ?? { approved: false, reason: `hook "${user.name}" gave no decision` };
      });
  }
  if (user.onEvent) hook.onEvent = user.onEvent;
  return hook;
}

/** Validates one tool at definition time and renders its PicoClaw ToolDefinition. */
function toolDefinition(tool: HookTool, seen: Map<string, HookTool>): ToolDefinition {
  if (typeof tool?.name !== 'string' || !TOOL_NAME.test(tool.name)) {
    throw new TypeError(`defineHook: tool name ${JSON.stringify(tool?.name)} must match ${TOOL_NAME}`);
  }
  if (seen.has(tool.name)) throw new TypeError(`defineHook: tool "${tool.name}" is declared twice`);
  if (typeof tool.handler !== 'function') {
    throw new TypeError(`defineHook: tool "${tool.name}" needs a handler`);
  }
  // io: 'input' describes what the LLM must send (fields with defaults are optional).
  const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<
    string,
    unknown
  >;
  if (parameters.type !== 'object') {
    throw new TypeError(`defineHook: tool "${tool.name}" parameters must be a zod object schema`);
  }
  return { type: 'function', function: { name: tool.name, description: tool.description ?? '', parameters } };
}

/**
 * PicoClaw replaces the request object wholesale, so the answer echoes everything and only appends.
 * Calls without a `tools` list (the /btw path, the graceful-terminal call) are left alone: the host
 * offers no tools there on purpose. Aborts and other non-continue actions pass through untouched.
 */
function injectTools(params: any, result: any, definitions: readonly ToolDefinition[]): unknown {
  const action = result?.action ?? 'continue';
  if (action !== 'continue' && action !== 'modify') return result;
  const request = result.request ?? params;
  if (!request || !Array.isArray(request.tools)) return result;
  const present = new Set(request.tools.map((t: any) => t?.function?.name));
  const added = definitions.filter((d) => !present.has(d.function.name));
  if (added.length === 0) return result;
  return { ...result, action: 'modify', request: { ...request, tools: [...request.tools, ...added] } };
}

/** Runs a declared tool; bad arguments and thrown errors become `is_error` results, never a crash. */
function runTool(tool: HookTool, params: any, ctx: HookCallContext): ToolResult | Promise<ToolResult> {
  const parsed = tool.parameters.safeParse(params?.arguments ?? {});
  if (!parsed.success) {
    return errorResult(`invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error)}`);
  }
  try {
    const out = tool.handler(parsed.data, toolContext(ctx, params));
    if (!isThenable(out)) return toToolResult(out);
    return Promise.resolve(out)
      .then(toToolResult)
      .catch((err: unknown) => toolFailed(tool, err));
  } catch (err) {
    return toolFailed(tool, err);
  }
}

function toolFailed(tool: HookTool, err: unknown): ToolResult {
  return errorResult(`${tool.name} failed: ${err instanceof Error ? err.message : String(err)}`);
}

/**
 * A tool handler's context: the call's context and the whole params. Not a spread of ctx, which
 * would read ctx.signal, and a gateway only creates a signal when one is read.
 */
function toolContext(ctx: HookCallContext, params: any): ToolCallContext {
  const context = new HookContext(ctx.method, ctx.tenant, ctx.hook, ctx) as HookContext & ToolCallContext;
  context.call = params;
  return context;
}

const respondWith = (result: ToolResult) => ({ action: 'respond', result }) as const;
const orContinue = <T>(answer: T | undefined | PromiseLike<T | undefined>) =>
  andThen(answer, (a) => a ?? CONTINUE());

/** `f` of the value: at once for a plain value, once settled for a promise. */
function andThen<T, R>(value: T | PromiseLike<T>, f: (v: T) => R): R | Promise<R> {
  return isThenable(value) ? Promise.resolve(value).then(f) : f(value);
}

/** Normalises a handler's return value; key order follows PicoClaw's ToolResult. */
export function toToolResult(value: ToolReturn | undefined | null): ToolResult {
  if (typeof value === 'string') return { for_llm: value, silent: false, is_error: false };
  const v = value ?? {};
  const out: ToolResult = { for_llm: typeof v.for_llm === 'string' ? v.for_llm : String(v.for_llm ?? '') };
  if (v.for_user) out.for_user = v.for_user;
  out.silent = v.silent ?? false;
  out.is_error = v.is_error ?? false;
  if (v.async) out.async = true;
  if (v.media?.length) out.media = v.media;
  if (v.artifact_tags?.length) out.artifact_tags = v.artifact_tags;
  if (v.response_handled) out.response_handled = true;
  return out;
}

function errorResult(message: string): ToolResult {
  return { for_llm: message, silent: false, is_error: true };
}

export type HookReply = { ok: true; result: unknown } | { ok: false; code: number; message: string };

/**
 * Runs one method on a hook object, the same way for every SDK transport (stdio, fetch). hello is
 * answered here. A missing interceptor answers `continue` (PicoClaw sends before/after in pairs); a
 * missing approveTool is an error, which every host reads as a denial.
 */
export async function dispatchToHook(
  hook: HookObject,
  method: string,
  params: any,
  ctx: HookCallContext,
): Promise<HookReply> {
  if (method === Method.Hello) {
    return { ok: true, result: { ok: true, name: hook.name ?? params?.name ?? '' } };
  }
  const key = hookObjectMethod(method);
  if (!key || key === 'name') {
    return { ok: false, code: ErrorCode.MethodNotFound, message: `unknown method ${method}` };
  }
  const fn = hook[key];
  if (typeof fn !== 'function') {
    if (key === 'approveTool') {
      return { ok: false, code: ErrorCode.MethodNotFound, message: `hook does not implement ${method}` };
    }
    return { ok: true, result: key === 'onEvent' ? null : CONTINUE() };
  }
  try {
    // JSON-RPC needs a `result` key; undefined would vanish in JSON.stringify.
    return { ok: true, result: (await fn(params, ctx)) ?? null };
  } catch (err) {
    return {
      ok: false,
      code: ErrorCode.InternalError,
      message: err instanceof Error ? err.message : String(err),
    };
  }
}
