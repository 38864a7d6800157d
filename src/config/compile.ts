import { orderModes } from '../protocol/methods.js';
import { type ConfigIssue, ConfigError, fromZodIssues } from './errors.js';
import { compileDecisions } from './decisions.js';
import { checkDecisionsOtlp, compileTracing } from './tracing.js';
import { compileToolGrant, grantNames, mergeToolGrants } from './grant-entries.js';
import { compileApprovals } from './approvals.js';
import { compileLimits } from './limits.js';
import { compileRedis } from './redis.js';
import { compileRules } from './rules.js';
import { configRevision } from './revision.js';
import type {
  CallLimits,
  GatewayConfig,
  HookRuntime,
  HookToolGrants,
  ResolvedBackend,
  ResolvedKey,
  TenantRuntime,
  ToolDescription,
} from './runtime.js';
import { type ConfigDocument, configSchema, type HookDocument, type KeyDocument } from './schema.js';
import { compileToolDefinitions } from './tool-definitions.js';

/** Turns a secret reference (`env:NAME`, `file:PATH` or a literal) into its value; throws on failure. */
export type SecretResolver = (ref: string) => string;

/** Checks that a path named in the config exists; returns why not, or undefined. Node passes one. */
export type PathChecker = (path: string) => string | undefined;

const MIN_HS256_BYTES = 32;
const encoder = new TextEncoder();

/**
 * Validates a parsed config document and resolves every secret. All problems are collected and
 * thrown together as one ConfigError, each naming its path. Runtime-neutral: the Node loader and
 * the Worker entry differ only in how they read the document and resolve secrets.
 */
export function compileConfig(
  input: unknown,
  resolveSecret: SecretResolver,
  checkPath?: PathChecker,
): GatewayConfig {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(fromZodIssues(parsed.error.issues));
  const doc: ConfigDocument = parsed.data;
  const issues: ConfigIssue[] = [];
  const resolve = (ref: string, path: string): string | undefined => {
    try {
      return resolveSecret(ref);
    } catch (err) {
      issues.push({ path, message: err instanceof Error ? err.message : String(err) });
      return undefined;
    }
  };

  const tenants = new Map<string, TenantRuntime>();
  for (const [tenantName, tenant] of Object.entries(doc.tenants)) {
    const base = `tenants.${tenantName}`;
    const keys: ResolvedKey[] = [];
    tenant.auth.keys.forEach((key, i) => {
      const k = compileKey(key, `${base}.auth.keys.${i}`, resolve, issues);
      if (k) keys.push(k);
    });
    const kids = keys.map((k) => ('kid' in k ? k.kid : undefined)).filter(Boolean);
    if (new Set(kids).size !== kids.length)
      issues.push({ path: `${base}.auth.keys`, message: 'duplicate kid' });

    const tenantLimits = compileLimits(tenant.limits, `${base}.limits`, issues);
    const tenantMode = tenant.mode ?? 'enforce';
    const tenantRules = compileRules(tenant.rules, `${base}.rules`, tenantMode, issues);
    const hooks = new Map<string, HookRuntime>();
    for (const [hookName, hook] of Object.entries(tenant.hooks)) {
      // A tenant in shadow keeps every hook in shadow: a hook cannot enforce what its tenant trials.
      const hookMode = tenantMode === 'shadow' ? 'shadow' : (hook.mode ?? 'enforce');
      const hookRules = compileRules(hook.rules, `${base}.hooks.${hookName}.rules`, hookMode, issues);
      const rules = [...tenantRules, ...hookRules];
      if (hook.backend.type === 'rules' && rules.length === 0) {
        issues.push({
          path: `${base}.hooks.${hookName}.rules`,
          message: 'a hook with backend type rules needs rules (its own or its tenant’s)',
        });
      }
      const backend = compileBackend(hook, `${base}.hooks.${hookName}.backend`, resolve);
      const hookLimits = compileLimits(hook.limits, `${base}.hooks.${hookName}.limits`, issues);
      const toolGrants = compileHookToolGrants(hook, `${base}.hooks.${hookName}`, issues);
      const toolDefinitions = compileToolDefinitions(
        toolGrants.respond.names,
        hook.tool_definitions,
        `${base}.hooks.${hookName}.tool_definitions`,
        issues,
      );
      if (checkPath && hook.backend.type === 'stdio')
        checkSandboxPaths(
          hook.backend.sandbox,
          `${base}.hooks.${hookName}.backend.sandbox`,
          checkPath,
          issues,
        );
      if (!backend) continue;
      // Every hook object has the same shape (limits present, maybe undefined): the call path reads it.
      const limits = hookLimits || tenantLimits ? { hook: hookLimits, tenant: tenantLimits } : undefined;
      hooks.set(hookName, {
        ...compileHook(tenantName, hookName, hook, backend, limits, toolDefinitions, toolGrants),
        rules,
        shadow: hookMode === 'shadow',
      });
    }
    tenants.set(tenantName, {
      name: tenantName,
      audience: tenant.auth.audience,
      issuer: tenant.auth.issuer,
      clockToleranceS: tenant.auth.clock_tolerance_s,
      keys,
      hooks,
      limits: tenantLimits,
      approvals: compileApprovals(tenant.approvals, `${base}.approvals`, resolve, issues),
    });
  }
  const s = doc.server;
  const { redisUrl, redisTls } = compileRedis(s, resolve, issues);
  const adminToken = compileAdminToken(s.admin_token, resolve, issues);
  const tracing = compileTracing(s.tracing, resolve, issues);
  checkDecisionsOtlp(s.decisions?.to, s.tracing, issues);
  if (issues.length > 0) throw new ConfigError(issues);

  return {
    server: {
      host: s.host,
      port: s.port,
      maxBodyBytes: s.max_body_bytes,
      maxInFlight: s.max_in_flight,
      wsPingIntervalMs: s.ws_ping_interval_ms,
      tokenCacheSize: s.token_cache_size,
      logLevel: s.log_level,
      redisUrl,
      redisTls,
      adminToken,
      sandbox: s.sandbox,
      decisions: compileDecisions(s.decisions),
      tracing,
    },
    revision: configRevision(doc),
    tenants,
  };
}

const MIN_ADMIN_TOKEN_BYTES = 32;

/** The admin token's value; a reference is required, so the token itself never sits in the file. */
function compileAdminToken(
  ref: string | undefined,
  resolve: (ref: string, path: string) => string | undefined,
  issues: ConfigIssue[],
): string | undefined {
  if (ref === undefined) return undefined;
  const path = 'server.admin_token';
  if (!ref.startsWith('env:') && !ref.startsWith('file:')) {
    issues.push({ path, message: 'must be a secret reference (env:NAME or file:PATH), not the token' });
    return undefined;
  }
  const value = resolve(ref, path);
  if (value === undefined) return undefined;
  const bytes = encoder.encode(value).length;
  if (bytes < MIN_ADMIN_TOKEN_BYTES) {
    issues.push({ path, message: `must be at least ${MIN_ADMIN_TOKEN_BYTES} bytes (got ${bytes})` });
    return undefined;
  }
  return value;
}

function compileKey(
  key: KeyDocument,
  path: string,
  resolve: (ref: string, path: string) => string | undefined,
  issues: ConfigIssue[],
): ResolvedKey | undefined {
  if ('jwks_url' in key) {
    return {
      kind: 'jwks',
      url: key.jwks_url,
      algs: key.algs,
      timeoutMs: key.timeout_ms,
      cacheMaxAgeMs: key.cache_max_age_ms,
    };
  }
  if (key.alg === 'HS256') {
    const value = resolve(key.secret, `${path}.secret`);
    if (value === undefined) return undefined;
    const secret = encoder.encode(value);
    if (secret.length < MIN_HS256_BYTES) {
      issues.push({
        path: `${path}.secret`,
        message: `HS256 secret must be at least ${MIN_HS256_BYTES} bytes (got ${secret.length})`,
      });
      return undefined;
    }
    return { kind: 'secret', kid: key.kid, alg: 'HS256', secret };
  }
  let material: string | Record<string, unknown> | undefined = key.public_key;
  if (typeof material === 'string') {
    material = resolve(material, `${path}.public_key`);
    if (material === undefined) return undefined;
    if (material.trimStart().startsWith('{')) {
      try {
        material = JSON.parse(material) as Record<string, unknown>;
      } catch {
        issues.push({ path: `${path}.public_key`, message: 'not a PEM (SPKI) key nor a JSON JWK' });
        return undefined;
      }
    } else if (!material.includes('-----BEGIN PUBLIC KEY-----')) {
      issues.push({
        path: `${path}.public_key`,
        message: 'expected a PEM public key (-----BEGIN PUBLIC KEY-----) or a JWK',
      });
      return undefined;
    }
  }
  if (typeof material === 'object' && ('d' in material || 'k' in material)) {
    issues.push({ path: `${path}.public_key`, message: 'a private or symmetric JWK is not a public key' });
    return undefined;
  }
  return { kind: 'public', kid: key.kid, alg: key.alg, key: material };
}

/** A sandbox bind of a path that does not exist would only fail later, at every spawn. */
function checkSandboxPaths(
  sandbox: { read_paths: string[]; write_paths: string[] },
  path: string,
  checkPath: PathChecker,
  issues: ConfigIssue[],
): void {
  for (const key of ['read_paths', 'write_paths'] as const) {
    sandbox[key].forEach((p, i) => {
      const problem = checkPath(p);
      if (problem) issues.push({ path: `${path}.${key}.${i}`, message: problem });
    });
  }
}

function compileBackend(
  hook: HookDocument,
  path: string,
  resolve: (ref: string, path: string) => string | undefined,
): ResolvedBackend | undefined {
  const b = hook.backend;
  if (b.type !== 'http') {
    if (b.type === 'stdio') {
      const env: Record<string, string> = {};
      let ok = true;
      for (const [k, v] of Object.entries(b.env)) {
        const value = resolve(v, `${path}.env.${k}`);
        if (value === undefined) ok = false;
        else env[k] = value;
      }
      return ok ? { ...b, env } : undefined;
    }
    return b;
  }
  const refs = Array.isArray(b.secret) ? b.secret : [b.secret];
  const secrets: string[] = [];
  refs.forEach((ref, i) => {
    const value = resolve(ref, Array.isArray(b.secret) ? `${path}.secret.${i}` : `${path}.secret`);
    if (value !== undefined) secrets.push(value);
  });
  if (secrets.length !== refs.length) return undefined;
  const { secret: _secret, ...rest } = b;
  return { ...rest, secrets };
}

/**
 * The hook's tool grants with every `when` compiled now, once per config (load and reload); a bad
 * condition is an issue naming its path (`….grants.approve_tools.1.when`).
 */
function compileHookToolGrants(hook: HookDocument, path: string, issues: ConfigIssue[]): HookToolGrants {
  const respond = compileToolGrant(hook.tools, `${path}.tools`, issues);
  const rewriteTools = compileToolGrant(hook.grants.rewrite_tools, `${path}.grants.rewrite_tools`, issues);
  return {
    respond,
    rewrite: mergeToolGrants(respond, rewriteTools),
    approve: compileToolGrant(hook.grants.approve_tools, `${path}.grants.approve_tools`, issues),
  };
}

function compileHook(
  tenant: string,
  name: string,
  hook: HookDocument,
  backend: ResolvedBackend,
  limits: CallLimits | undefined,
  toolDefinitions: ReadonlyMap<string, ToolDescription>,
  toolGrants: HookToolGrants,
): Omit<HookRuntime, 'rules' | 'shadow'> {
  const modeList = orderModes(hook.modes);
  return {
    tenant,
    name,
    modes: new Set(modeList),
    modeList,
    tools: toolGrants.respond.names,
    toolDefinitions,
    toolGrants,
    grants: {
      rewriteTools: grantNames(hook.grants.rewrite_tools),
      rewriteResults: hook.grants.rewrite_results,
      rewriteLlmResponse: hook.grants.rewrite_llm_response,
      rewriteMessages: hook.grants.rewrite_messages,
      rewriteModel: hook.grants.rewrite_model,
      conversationAccess: hook.grants.conversation_access,
      approveTools: toolGrants.approve.names,
    },
    onViolation: hook.on_violation,
    onFailure: hook.on_failure,
    timeoutMs: hook.timeout_ms,
    approvalTimeoutMs: hook.approval_timeout_ms,
    backend,
    limits,
  };
}
