import { z } from 'zod';
import { MODES } from '../protocol/methods.js';
import { approvalsSchema } from './approvals.js';
import { decisionsSchema } from './decisions.js';
import { tracingSchema } from './tracing.js';
import { grantListSchema } from './grant-entries.js';
import { POLICY_MODES, rulesSchema } from './rules.js';

/**
 * The user-facing config contract. Names are snake_case as in the YAML; `loadConfig` turns a
 * validated document into the runtime shapes in ./runtime.ts. Secret values are references
 * (`env:NAME`, `file:PATH`, or a literal) resolved after validation.
 */

const name = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1-64 of A-Z a-z 0-9 _ . - (no leading symbol)');

const hmacKey = z
  .object({
    kid: z.string().min(1).optional(),
    alg: z.literal('HS256'),
    secret: z.string().min(1),
  })
  .strict();

const publicKey = z
  .object({
    kid: z.string().min(1).optional(),
    alg: z.enum(['RS256', 'ES256', 'EdDSA']),
    public_key: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  })
  .strict();

const jwksKey = z
  .object({
    jwks_url: z.url({ protocol: /^https?$/ }),
    algs: z.array(z.enum(['RS256', 'ES256', 'EdDSA'])).min(1),
    timeout_ms: z.number().int().positive().max(30_000).default(5_000),
    cache_max_age_ms: z.number().int().positive().default(600_000),
  })
  .strict();

export const keySchema = z.union([hmacKey, publicKey, jwksKey]);

/** A fork bomb stops at `pids`; a memory bomb (or a full private /tmp) is killed at `memory_mb`. */
export const SANDBOX_LIMIT_DEFAULTS = { pids: 64, memory_mb: 512 };

const sandboxNetwork = z
  .union([z.enum(['outbound', 'none', 'host']), z.boolean()], {
    error: 'must be outbound, none or host (true means outbound, false none)',
  })
  .default('outbound')
  .transform((v) => (v === true ? 'outbound' : v === false ? 'none' : v));

const sandboxLimits = z
  .object({
    /** Processes and threads of the hook together (a Node hook alone has about 11 threads). */
    pids: z.number().int().min(8).max(65_536).default(SANDBOX_LIMIT_DEFAULTS.pids),
    /** Memory of the hook's processes and of its private /tmp, together, in MiB. */
    memory_mb: z
      .number()
      .int()
      .min(32)
      .max(1024 * 1024)
      .default(SANDBOX_LIMIT_DEFAULTS.memory_mb),
  })
  .strict()
  .default(SANDBOX_LIMIT_DEFAULTS);

const stdioBackend = z
  .object({
    type: z.literal('stdio'),
    command: z.array(z.string().min(1)).min(1),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().optional(),
    /** Pass the gateway's own environment to the hook (off: only PATH, HOME, LANG and `env`). */
    inherit_env: z.boolean().default(false),
    /**
     * Bytes the gateway holds for a hook that is not reading its stdin before new calls fail at once
     * (BACKEND_OVERLOADED, answered by the failure mode). Default: max_body_bytes + 4 MiB.
     */
    max_queued_bytes: z.number().int().positive().optional(),
    /** A hook whose stdin has not drained for this long is killed and restarted (0: never; default 30000). */
    stdin_stall_ms: z.number().int().min(0).optional(),
    /** What the hook's stderr may put in the log; the rest is dropped and counted. */
    stderr: z
      .object({
        /** Lines logged at once (default 100). */
        burst_lines: z.number().int().positive().optional(),
        /** Lines per second after the burst (default 20). */
        lines_per_second: z.number().min(0).optional(),
        /** Longer lines are cut (default 2048). */
        max_line_bytes: z
          .number()
          .int()
          .min(64)
          .max(1024 * 1024)
          .optional(),
      })
      .strict()
      .optional(),
    /** What the hook sees inside its sandbox besides the system, its interpreter and its `cwd`. */
    sandbox: z
      .object({
        read_paths: z.array(z.string().min(1)).default([]),
        write_paths: z.array(z.string().min(1)).default([]),
        /**
         * `outbound` (default): a network namespace of its own with outbound NAT and no way to the
         * host's loopback; `none`: only a loopback of its own; `host`: the host's network, loopback
         * services included. The booleans of older configs: true is `outbound`, false `none`.
         */
        network: sandboxNetwork,
        /** What this hook's processes may hold, together (src/node/sandbox/sandbox-limits.ts). */
        limits: sandboxLimits,
      })
      .strict()
      .default({ read_paths: [], write_paths: [], network: 'outbound', limits: SANDBOX_LIMIT_DEFAULTS }),
  })
  .strict();

const moduleBackend = z.object({ type: z.literal('module'), module: z.string().min(1) }).strict();

/** No process and no code: the hook answers from its `rules` (and its tenant's) alone. */
const rulesBackend = z.object({ type: z.literal('rules') }).strict();

const httpBackend = z
  .object({
    type: z.literal('http'),
    url: z.url({ protocol: /^https?$/ }),
    secret: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    timeout_ms: z.number().int().positive().optional(),
  })
  .strict();

export const backendSchema = z.discriminatedUnion('type', [
  stdioBackend,
  moduleBackend,
  httpBackend,
  rulesBackend,
]);

const grants = z
  .object({
    /** Names or `{ tool, when }` entries (src/config/grant-entries.ts), as `approve_tools`. */
    rewrite_tools: grantListSchema,
    rewrite_results: z.boolean().default(false),
    rewrite_llm_response: z.boolean().default(false),
    rewrite_messages: z.boolean().default(false),
    /** before_llm `model` and `options` (max_tokens, temperature, …). */
    rewrite_model: z.boolean().default(false),
    conversation_access: z.boolean().default(false),
    /**
     * Tools whose call the hook may approve on a host that has an approval of its own (Claude Code's
     * PermissionRequest `allow` replaces the person's prompt). Narrowed by the token's `tools` claim.
     * PicoClaw's approve_tool is that host's only approval and is not limited by this list.
     * An entry `{ tool, when }` grants the tool only on calls its CEL condition holds for.
     */
    approve_tools: grantListSchema,
  })
  .strict();

/**
 * Call limits of a tenant or a hook (absent = unlimited). Rate is a GCRA (a token bucket without a
 * timer): `calls_per_second` sustained, `burst` calls at once (default: one second's worth).
 */
export const limitsSchema = z
  .object({
    calls_per_second: z.number().positive().max(1_000_000).optional(),
    burst: z.number().int().positive().max(1_000_000).optional(),
    max_in_flight: z.number().int().positive().max(1_000_000).optional(),
  })
  .strict();

/**
 * How the MCP route describes one of the hook's tools (first choice, before what the hook itself
 * declares or injects). `input_schema` is the JSON Schema of the arguments: an object schema.
 */
const toolDefinition = z
  .object({
    description: z.string().optional(),
    input_schema: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const hookSchema = z
  .object({
    backend: backendSchema,
    modes: z.array(z.enum(MODES)).min(1).default(['llm', 'tool']),
    /** The hook's own tools: names, or `{ name, when }` entries whose condition limits `respond`. */
    tools: grantListSchema,
    /** Keyed by tool name; each name must be one of `tools`. */
    tool_definitions: z.record(z.string().min(1), toolDefinition).default({}),
    grants: grants.default({
      rewrite_tools: [],
      rewrite_results: false,
      rewrite_llm_response: false,
      rewrite_messages: false,
      rewrite_model: false,
      conversation_access: false,
      approve_tools: [],
    }),
    on_violation: z.enum(['strip', 'deny']).default('strip'),
    on_failure: z.enum(['open', 'closed']).default('open'),
    /** Interceptor deadline; stays under PicoClaw's own 5 s. */
    timeout_ms: z.number().int().positive().max(300_000).default(4_000),
    /** Approval deadline; stays under PicoClaw's own 60 s. */
    approval_timeout_ms: z.number().int().positive().max(600_000).default(55_000),
    limits: limitsSchema.optional(),
    /** Gateway rules evaluated on this hook's tool calls before it is asked (src/config/rules.ts). */
    rules: rulesSchema,
    /** `shadow`: its rules and grant conditions decide and are recorded, and change nothing. */
    mode: z.enum(POLICY_MODES).optional(),
  })
  .strict();

export const tenantSchema = z
  .object({
    auth: z
      .object({
        audience: z.string().min(1).default('hookgate'),
        issuer: z.string().min(1).optional(),
        clock_tolerance_s: z.number().int().min(0).max(300).default(0),
        keys: z.array(keySchema).min(1),
      })
      .strict(),
    hooks: z.record(name, hookSchema),
    /** How the tenant's approvers hear of a call waiting for them (src/config/approvals.ts). */
    approvals: approvalsSchema.optional(),
    limits: limitsSchema.optional(),
    /** Gateway rules for every hook of the tenant, evaluated before each hook's own. */
    rules: rulesSchema,
    /** `shadow`: every rule and grant condition of the tenant decides, is recorded, changes nothing. */
    mode: z.enum(POLICY_MODES).optional(),
  })
  .strict();

export const serverSchema = z
  .object({
    host: z.string().min(1).default('127.0.0.1'),
    port: z.number().int().min(0).max(65535).default(8787),
    max_body_bytes: z
      .number()
      .int()
      .positive()
      .max(64 * 1024 * 1024)
      .default(8 * 1024 * 1024),
    /** Calls in flight per WebSocket connection. */
    max_in_flight: z.number().int().positive().max(10_000).default(256),
    ws_ping_interval_ms: z.number().int().positive().default(30_000),
    token_cache_size: z.number().int().min(0).default(10_000),
    log_level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * Shares tenant and hook limits across replicas (redis:// or rediss://, a secret reference since
     * it may carry a password). Absent: each process limits on its own.
     */
    redis_url: z.string().min(1).optional(),
    /**
     * How the server of a rediss:// redis_url is verified: `ca` (a reference, `file:PATH` or
     * `env:NAME`, to PEM) is then the only CA trusted, `servername` the name its certificate must
     * carry when the URL's host is not it.
     */
    redis_tls: z
      .object({ ca: z.string().min(1).optional(), servername: z.string().min(1).optional() })
      .strict()
      .optional(),
    /**
     * Bearer token for /metrics, /readyz details and POST /admin/reload: a secret reference
     * (`env:NAME`, `file:PATH`), at least 32 bytes. Without it those routes are disabled.
     */
    admin_token: z.string().min(1).optional(),
    /** bubblewrap for stdio hooks: auto (when usable, else a warning), required (else refuse), off. */
    sandbox: z.enum(['auto', 'required', 'off']).default('auto'),
    /** One decision record per hook call (src/config/decisions.ts); absent: off. */
    decisions: decisionsSchema.optional(),
    /** OpenTelemetry spans per hook call over OTLP/HTTP (src/config/tracing.ts); absent: off. */
    tracing: tracingSchema.optional(),
  })
  .strict();

export const configSchema = z
  .object({
    server: serverSchema.default(serverSchema.parse({})),
    tenants: z.record(name, tenantSchema),
  })
  .strict();

export type ConfigDocument = z.infer<typeof configSchema>;
export type TenantDocument = z.infer<typeof tenantSchema>;
export type HookDocument = z.infer<typeof hookSchema>;
export type KeyDocument = z.infer<typeof keySchema>;
export type BackendDocument = z.infer<typeof backendSchema>;
export type LimitsDocument = z.infer<typeof limitsSchema>;
