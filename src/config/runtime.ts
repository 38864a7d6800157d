import type { Mode } from '../protocol/methods.js';
import type { ApprovalSettings } from './approvals.js';
import type { BackendDocument } from './schema.js';
import type { DecisionSettings } from './decisions.js';
import type { TracingSettings } from './tracing.js';
import type { ToolGrant } from './grant-entries.js';
import type { CompiledRule } from './rules.js';

/** Config after validation and secret resolution: what the gateway runs on, built once at load. */

export type ResolvedKey =
  | { kind: 'secret'; kid?: string; alg: 'HS256'; secret: Uint8Array }
  | { kind: 'public'; kid?: string; alg: 'RS256' | 'ES256' | 'EdDSA'; key: string | Record<string, unknown> }
  | {
      kind: 'jwks';
      url: string;
      algs: ('RS256' | 'ES256' | 'EdDSA')[];
      timeoutMs: number;
      cacheMaxAgeMs: number;
    };

export interface HookGrants {
  rewriteTools: ReadonlySet<string>;
  rewriteResults: boolean;
  rewriteLlmResponse: boolean;
  rewriteMessages: boolean;
  rewriteModel: boolean;
  conversationAccess: boolean;
  /** Tools whose call may be approved past a host's own approval (see schema `approve_tools`). */
  approveTools: ReadonlySet<string>;
}

/**
 * The tool grants with their entries, conditions compiled (once per config): the name sets above
 * say which tools a grant names at all; these say on which calls. src/policy/grant-check.ts reads
 * them after the name check.
 */
export interface HookToolGrants {
  /** `tools`: respond (and an own tool's result rewrite). */
  respond: ToolGrant;
  /** `tools` then `rewrite_tools`: a before_tool rename or argument rewrite. */
  rewrite: ToolGrant;
  /** `grants.approve_tools`: an approval past the host's own. */
  approve: ToolGrant;
}

/** A resolved backend: secret references replaced by their values. */
export type ResolvedBackend =
  | Extract<BackendDocument, { type: 'stdio' | 'module' | 'rules' }>
  | (Omit<Extract<BackendDocument, { type: 'http' }>, 'secret'> & { secrets: string[] });

/** One set of limits (a tenant's or a hook's); a field left out is unlimited. */
export interface LimitSpec {
  /** Sustained calls per second (GCRA); with `burst` calls allowed at once. */
  callsPerSecond?: number;
  burst: number;
  maxInFlight?: number;
}

/** The limits a call to one hook is subject to: its own and its tenant's. */
export interface CallLimits {
  hook?: LimitSpec;
  tenant?: LimitSpec;
}

/** A tool as the MCP route describes it, from the hook's `tool_definitions`. */
export interface ToolDescription {
  description?: string;
  /** JSON Schema of the arguments; always `type: "object"`. */
  inputSchema: Record<string, unknown>;
}

export interface HookRuntime {
  tenant: string;
  name: string;
  modes: ReadonlySet<Mode>;
  /** In PicoClaw's hello order. */
  modeList: readonly Mode[];
  tools: ReadonlySet<string>;
  /** `tool_definitions`, keyed by tool name (each one of `tools`). */
  toolDefinitions: ReadonlyMap<string, ToolDescription>;
  grants: HookGrants;
  toolGrants: HookToolGrants;
  onViolation: 'strip' | 'deny';
  onFailure: 'open' | 'closed';
  timeoutMs: number;
  approvalTimeoutMs: number;
  backend: ResolvedBackend;
  /** Absent when neither the hook nor its tenant has limits: the call path then skips them. */
  limits?: CallLimits;
  /** Gateway rules on its tool calls: the tenant's, then its own; each with its mode resolved. */
  rules: readonly CompiledRule[];
  /** Its grant conditions (and rules without a mode of their own) record and change nothing. */
  shadow: boolean;
}

export interface TenantRuntime {
  name: string;
  audience: string;
  issuer?: string;
  clockToleranceS: number;
  keys: ResolvedKey[];
  hooks: ReadonlyMap<string, HookRuntime>;
  limits?: LimitSpec;
  /** The tenant's approval webhook and inbox address (tenants.<name>.approvals). */
  approvals?: ApprovalSettings;
}

export interface ServerSettings {
  host: string;
  port: number;
  maxBodyBytes: number;
  maxInFlight: number;
  wsPingIntervalMs: number;
  tokenCacheSize: number;
  logLevel: string;
  /** Resolved (may hold a password): never log it. */
  redisUrl?: string;
  /** With a rediss:// redisUrl: the pinned CA (PEM) and the name the server's certificate carries. */
  redisTls?: { ca?: string; servername?: string };
  /** The admin routes' bearer token (resolved); undefined: admin routes disabled. */
  adminToken?: string;
  sandbox: 'auto' | 'required' | 'off';
  /** Where decision records go (server.decisions); applies at start. */
  decisions: DecisionSettings;
  /** OpenTelemetry spans per call (server.tracing); undefined: off. Applies at start. */
  tracing?: TracingSettings;
}

export interface GatewayConfig {
  server: ServerSettings;
  /** Names this config in decision records (src/config/revision.ts). */
  revision: string;
  tenants: ReadonlyMap<string, TenantRuntime>;
}
