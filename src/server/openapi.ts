import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';

/**
 * The HTTP surface as @hono/zod-openapi route definitions. The handlers live in app.ts and parse
 * bodies themselves (a malformed JSON-RPC body must get a JSON-RPC error, not a 400 from a
 * validator); these definitions are the single source of openapi/openapi.json.
 */

const HookParams = z.object({
  tenant: z.string().openapi({ param: { name: 'tenant', in: 'path' }, example: 'demo' }),
  hook: z.string().openapi({ param: { name: 'hook', in: 'path' }, example: 'weather' }),
});

/**
 * A pattern for any non-empty name but these: a host's other events, told apart from its tool
 * events in the document (a tool event needs its tool's name; the others do not).
 */
function otherThan(names: readonly string[]): RegExp {
  const listed = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return new RegExp(`^(?!(?:${listed})$)[\\s\\S]+$`);
}

const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).openapi('Error');

const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.number(), z.string()]).optional().openapi({ description: 'absent for notifications' }),
    method: z.string().min(1).openapi({
      example: 'hook.before_tool',
      description:
        'hook.hello, hook.before_llm, hook.after_llm, hook.before_tool, hook.after_tool, hook.approve_tool, hook.runtime_event (or the older hook.event)',
    }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('JsonRpcMessage');

const JsonRpcResponse = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.number(), z.string(), z.null()]),
    result: z.unknown().optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .openapi('JsonRpcResponse');

const LimitSpecDoc = z.object({
  calls_per_second: z.number().optional(),
  burst: z.number().int().optional(),
  max_in_flight: z.number().int().optional(),
});

const HookDescription = z
  .object({
    tenant: z.string(),
    hook: z.string(),
    protocol_version: z.number().int(),
    modes: z.array(z.enum(['observe', 'llm', 'tool', 'approve'])),
    tools: z.array(z.string()),
    grants: z.record(z.string(), z.unknown()),
    on_violation: z.enum(['strip', 'deny']),
    on_failure: z.enum(['open', 'closed']),
    timeout_ms: z.number().int(),
    approval_timeout_ms: z.number().int(),
    limits: z.object({
      max_body_bytes: z.number().int(),
      max_in_flight: z.number().int(),
      /** The hook's and its tenant's call limits, where configured. */
      hook: LimitSpecDoc.optional(),
      tenant: LimitSpecDoc.optional(),
    }),
    backend: z.object({ type: z.enum(['stdio', 'module', 'http']), ready: z.boolean() }),
    dialects: z
      .array(z.enum(['picoclaw', 'claude-code', 'openclaw', 'hermes', 'codex', 'copilot', 'gemini']))
      .openapi({
        description:
          'Host protocols this hook answers: picoclaw on this route and /ws, claude-code on /claude-code, openclaw on /openclaw, hermes on /hermes, and codex, copilot, gemini (`hookgate hook`) on /codex, /copilot, /gemini',
      }),
    mcp: z.string().openapi({
      description: "Path of the hook's MCP endpoint (its tools as an MCP server)",
      example: '/v1/tenants/demo/hooks/weather/mcp',
    }),
  })
  .openapi('HookDescription');

const CLAUDE_CODE_TOOL_EVENTS = ['PreToolUse', 'PermissionRequest', 'PostToolUse'] as const;

/** The fields of Claude Code's HTTP-hook body, as the route checks them (any event). */
export const ClaudeCodeHookFields = z
  .object({
    hook_event_name: z.string().min(1),
    session_id: z.string().optional(),
    prompt_id: z.string().optional(),
    transcript_path: z.string().optional(),
    cwd: z.string().optional(),
    tool_name: z.string().optional().openapi({ example: 'Bash' }),
    tool_input: z.record(z.string(), z.unknown()).nullable().optional(),
    tool_response: z.unknown().optional(),
    tool_use_id: z.string().optional(),
    prompt: z.string().optional(),
  })
  .passthrough();

const ClaudeCodeHookInput = z
  .union([
    ClaudeCodeHookFields.extend({
      hook_event_name: z.enum(CLAUDE_CODE_TOOL_EVENTS).openapi({ example: 'PreToolUse' }),
      tool_name: z.string().min(1).openapi({ example: 'Bash' }),
    }),
    ClaudeCodeHookFields.extend({
      hook_event_name: z
        .string()
        .regex(otherThan(CLAUDE_CODE_TOOL_EVENTS))
        .openapi({ example: 'UserPromptSubmit' }),
    }),
  ])
  .openapi('ClaudeCodeHookInput', {
    description:
      "Claude Code's HTTP-hook body, as it sends it for every event. hook_event_name: " +
      'PreToolUse → hook.before_tool, PermissionRequest → hook.approve_tool, PostToolUse → hook.after_tool ' +
      '(these three need tool_name), UserPromptSubmit → hook.before_llm; every other event → hook.runtime_event ' +
      '(observe mode), answered {}',
  });

const ClaudeCodeHookAnswer = z
  .object({
    continue: z.literal(false).optional().openapi({ description: 'abort_turn / hard_abort' }),
    stopReason: z.string().optional(),
    decision: z.literal('block').optional().openapi({ description: 'UserPromptSubmit blocked (abort_turn)' }),
    reason: z.string().optional(),
    hookSpecificOutput: z
      .object({
        hookEventName: z.enum(['PreToolUse', 'PermissionRequest', 'PostToolUse']),
        permissionDecision: z.literal('deny').optional().openapi({ description: 'never "allow"' }),
        permissionDecisionReason: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional().openapi({
          description: 'the complete tool input after a granted rewrite; sent without permissionDecision',
        }),
        decision: z
          .object({ behavior: z.enum(['allow', 'deny']), message: z.string().optional() })
          .optional()
          .openapi({ description: 'allow only for tools in grants.approve_tools; never updatedPermissions' }),
        updatedToolOutput: z.unknown().optional().openapi({ description: "in the tool's own output shape" }),
      })
      .optional(),
  })
  .openapi('ClaudeCodeHookAnswer', { description: '{} is no decision' });

const HERMES_TOOL_EVENTS = ['pre_tool_call', 'post_tool_call'] as const;

/** The fields of a Hermes shell-hook payload, as the route checks them (any event). */
export const HermesHookFields = z
  .object({
    hook_event_name: z.string().min(1),
    tool_name: z.string().nullable().optional().openapi({ example: 'terminal' }),
    tool_input: z.record(z.string(), z.unknown()).nullable().optional(),
    session_id: z.string().optional(),
    cwd: z.string().optional(),
    extra: z.record(z.string(), z.unknown()).nullable().optional().openapi({
      description:
        "the event's other arguments (turn_id, result, duration_ms, user_message, conversation_history, …)",
    }),
  })
  .passthrough();

const HermesHookInput = z
  .union([
    HermesHookFields.extend({
      hook_event_name: z.enum(HERMES_TOOL_EVENTS).openapi({ example: 'pre_tool_call' }),
      tool_name: z.string().min(1).openapi({ example: 'terminal' }),
    }),
    HermesHookFields.extend({
      hook_event_name: z.string().regex(otherThan(HERMES_TOOL_EVENTS)).openapi({ example: 'pre_llm_call' }),
    }),
  ])
  .openapi('HermesHookInput', {
    description:
      "Hermes's shell-hook stdin, as `hookgate hermes-hook` forwards it. hook_event_name: " +
      'pre_tool_call → hook.before_tool, post_tool_call → hook.after_tool (these two need tool_name), ' +
      'pre_llm_call → hook.before_llm; every other event → hook.runtime_event (observe mode), answered {}',
  });

const HermesHookAnswer = z
  .object({
    action: z.enum(['block', 'modify']).optional(),
    message: z.string().optional().openapi({ description: 'block: the tool result the model reads' }),
    args: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        'modify: the complete arguments after a granted rewrite (Hermes merges them key by key; a rewrite that removes a key is refused)',
    }),
    context: z.string().optional().openapi({
      description: 'pre_llm_call: text appended to the user message; only for hooks with conversation_access',
    }),
  })
  .openapi('HermesHookAnswer', { description: '{} is no decision' });
const OPENCLAW_TOOL_HOOKS = ['before_tool_call', 'after_tool_call', 'hookgate.execute_tool'] as const;

/** The fields of what the OpenClaw plugin forwards, as the route checks them (any hook). */
export const OpenClawHookFields = z
  .object({
    hook: z.string().min(1),
    event: z.record(z.string(), z.unknown()).openapi({
      description:
        "OpenClaw's event object as the handler got it (before_tool_call: toolName, params, runId, toolCallId; " +
        'hookgate.execute_tool: toolName, params, toolCallId)',
    }),
    ctx: z.record(z.string(), z.unknown()).nullable().optional().openapi({
      description:
        "The JSON-safe fields of OpenClaw's hook context (agentId, sessionKey, sessionId, runId, ...)",
    }),
  })
  .passthrough();

const OpenClawHookInput = z
  .union([
    OpenClawHookFields.extend({
      hook: z.enum(OPENCLAW_TOOL_HOOKS).openapi({ example: 'before_tool_call' }),
      event: z
        .object({
          toolName: z.string().min(1).openapi({ example: 'get_weather' }),
          params: z.record(z.string(), z.unknown()).nullable().optional(),
        })
        .passthrough(),
    }),
    OpenClawHookFields.extend({
      hook: z.string().regex(otherThan(OPENCLAW_TOOL_HOOKS)).openapi({ example: 'llm_input' }),
    }),
  ])
  .openapi('OpenClawHookInput', {
    description:
      'What the hookgate OpenClaw plugin forwards for one hook call. hook: before_tool_call → hook.before_tool ' +
      '(then hook.approve_tool with the approve mode), after_tool_call → hook.after_tool, llm_input → hook.before_llm, ' +
      "llm_output → hook.after_llm; hookgate.execute_tool (OpenClaw runs one of the hook's own tools, registered by " +
      "the plugin) → hook.before_tool, whose respond is the tool's result (OpenClawToolResult); these three tool hooks " +
      'need event.toolName; every other hook → hook.runtime_event (observe mode), answered {}',
  });

const OpenClawHookAnswer = z
  .object({
    block: z.literal(true).optional().openapi({
      description:
        'before_tool_call refused: deny_tool, approved:false, a failure of a closed hook, respond (as its text)',
    }),
    blockReason: z.string().optional().openapi({ description: 'the tool message the model reads' }),
    params: z.record(z.string(), z.unknown()).optional().openapi({
      description: "the tool's complete params after a granted rewrite (OpenClaw replaces them)",
    }),
  })
  .openapi('OpenClawHookAnswer', {
    description: "{} is no objection; the plugin's handler returns this to OpenClaw",
  });

const OpenClawToolResult = z
  .object({
    content: z
      .array(z.object({ type: z.literal('text'), text: z.string() }))
      .openapi({ description: "What the model reads: respond's for_llm, or why there is no result" }),
    details: z
      .object({
        ok: z.boolean().openapi({ description: 'false: OpenClaw records the call as failed' }),
        error: z.string().optional(),
        media: z.array(z.string()).optional().openapi({ description: "respond's media refs" }),
      })
      .passthrough(),
  })
  .openapi('OpenClawToolResult', {
    description:
      "hookgate.execute_tool: the AgentToolResult the plugin tool's execute returns (respond → the result; " +
      'deny_tool, any other answer, a failed hook or a tool this token may not use → ok: false with the reason)',
  });

/** An integer JavaScript holds exactly: what the MCP SDK takes for an integer. */
const SafeInt = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);

/** A JSON-RPC id as MCP has it: a string or an integer. */
const McpId = z.union([z.string(), SafeInt]);

/**
 * What an MCP client may POST, as the MCP SDK serving the route checks it: a request, a
 * notification or a response (to a server request), each with no members beside JSON-RPC's.
 */
const McpMessage = z
  .union([
    z
      .object({
        jsonrpc: z.literal('2.0'),
        id: McpId.optional().openapi({ description: 'absent for notifications' }),
        method: z.string().openapi({
          example: 'tools/call',
          description:
            'server/discover (2026-07-28), initialize (2025 revisions), ping, tools/list, tools/call, notifications/initialized, ...',
        }),
        params: z
          .object({
            _meta: z
              .object({ progressToken: McpId.optional() })
              .passthrough()
              .optional()
              .openapi({ description: 'the 2026-07-28 protocol-version envelope goes here' }),
          })
          .passthrough()
          .optional(),
      })
      .strict(),
    z.object({ jsonrpc: z.literal('2.0'), id: McpId, result: z.record(z.string(), z.unknown()) }).strict(),
    z
      .object({
        jsonrpc: z.literal('2.0'),
        id: McpId.optional(),
        error: z.object({ code: SafeInt, message: z.string(), data: z.unknown().optional() }),
      })
      .strict(),
  ])
  .openapi('McpMessage');

const authErrors = {
  401: {
    description: 'Missing or invalid token (WWW-Authenticate: Bearer)',
    content: { 'application/json': { schema: ErrorBody } },
  },
  403: {
    description: 'Token valid, but not for this tenant or hook',
    content: { 'application/json': { schema: ErrorBody } },
  },
  404: { description: 'The tenant has no such hook', content: { 'application/json': { schema: ErrorBody } } },
};

const adminErrors = {
  401: {
    description: 'Missing or wrong admin token (WWW-Authenticate: Bearer)',
    content: { 'application/json': { schema: ErrorBody } },
  },
  403: {
    description: 'Admin routes are disabled: no server.admin_token is configured',
    content: { 'application/json': { schema: ErrorBody } },
  },
};

const Readiness = z
  .object({
    ready: z.boolean(),
    not_ready: z
      .array(z.string())
      .optional()
      .openapi({ description: 'tenant/hook of every backend not ready; only with the admin token' }),
  })
  .openapi('Readiness');

const ReloadSummary = z
  .object({
    reloaded: z.literal(true),
    tenants: z.object({
      added: z.array(z.string()),
      removed: z.array(z.string()),
      auth_changed: z.array(z.string()),
    }),
    hooks: z.object({
      added: z.array(z.string()),
      removed: z.array(z.string()),
      changed: z.array(z.string()),
      unchanged: z.array(z.string()),
      restarted: z.array(z.string()).openapi({
        description:
          'hooks whose config is unchanged but whose process was restarted, because what their sandbox must cover changed (a tenant was added)',
      }),
    }),
    admin_token: z.enum(['unchanged', 'changed', 'added', 'removed']),
    needs_restart: z
      .array(z.string())
      .openapi({ description: 'server settings that differ but apply only after a restart' }),
  })
  .openapi('ReloadSummary');

const ConfigInvalid = z
  .object({
    error: z.object({ code: z.literal('config_invalid'), message: z.string() }),
    issues: z.array(z.object({ path: z.string(), message: z.string() })),
  })
  .openapi('ConfigInvalid');

const COMMAND_TOOL_EVENTS = {
  codex: ['PreToolUse', 'PermissionRequest', 'PostToolUse'],
  gemini: ['BeforeTool', 'AfterTool'],
} as const;

const toolInput = z.record(z.string(), z.unknown()).nullable().optional();

/** The fields of Codex's command-hook stdin, as its route checks them (any event). */
const CodexHookFields = z
  .object({
    hook_event_name: z.string().min(1),
    session_id: z.string().optional(),
    turn_id: z.string().optional(),
    transcript_path: z.string().nullable().optional(),
    cwd: z.string().optional(),
    model: z.string().optional(),
    permission_mode: z.string().optional(),
    tool_name: z.string().optional().openapi({ example: 'Bash' }),
    tool_input: toolInput,
    tool_use_id: z.string().optional(),
    tool_response: z.unknown().optional(),
  })
  .passthrough();

/** The fields of Copilot CLI's command-hook stdin (preToolUse, postToolUse: it names no event). */
const CopilotHookFields = z
  .object({
    sessionId: z.string().optional(),
    timestamp: z.number().optional().openapi({ description: 'epoch milliseconds' }),
    cwd: z.string().optional(),
    toolName: z.string().min(1).openapi({ example: 'bash' }),
    toolArgs: toolInput,
    toolResult: z
      .object({ resultType: z.string().optional(), textResultForLlm: z.string().optional() })
      .passthrough()
      .optional()
      .openapi({ description: 'present on postToolUse only' }),
  })
  .passthrough();

/** The fields of Gemini CLI's command-hook stdin, as its route checks them (any event). */
const GeminiHookFields = z
  .object({
    hook_event_name: z.string().min(1),
    session_id: z.string().optional(),
    transcript_path: z.string().optional(),
    cwd: z.string().optional(),
    timestamp: z.string().optional(),
    tool_name: z.string().optional().openapi({ example: 'run_shell_command' }),
    tool_input: toolInput,
    tool_response: z.unknown().optional(),
  })
  .passthrough();

/** Each command-hook host's documented fields, by dialect: its route refuses a body that breaks them. */
export const COMMAND_HOST_FIELDS: Readonly<Record<string, z.ZodType>> = {
  codex: CodexHookFields,
  copilot: CopilotHookFields,
  gemini: GeminiHookFields,
};

const CodexHookInput = z
  .union([
    CodexHookFields.extend({
      hook_event_name: z.enum(COMMAND_TOOL_EVENTS.codex).openapi({ example: 'PreToolUse' }),
      tool_name: z.string().min(1).openapi({ example: 'Bash' }),
    }),
    CodexHookFields.extend({
      hook_event_name: z
        .string()
        .regex(otherThan(COMMAND_TOOL_EVENTS.codex))
        .openapi({ example: 'SessionStart' }),
    }),
  ])
  .openapi('CodexHookInput', {
    description:
      "Codex's command-hook stdin, as `hookgate hook --host codex` forwards it. hook_event_name: PreToolUse → " +
      'hook.before_tool, PermissionRequest → hook.approve_tool, PostToolUse → hook.after_tool (these need tool_name); ' +
      'every other event → hook.runtime_event (observe mode), answered {}',
  });

const CopilotHookInput = CopilotHookFields.openapi('CopilotHookInput', {
  description:
    "Copilot CLI's command-hook stdin, as `hookgate hook --host copilot` forwards it: preToolUse → hook.before_tool " +
    '(then hook.approve_tool for a hook with the approve mode), postToolUse (toolResult present) → hook.after_tool',
});

const GeminiHookInput = z
  .union([
    GeminiHookFields.extend({
      hook_event_name: z.enum(COMMAND_TOOL_EVENTS.gemini).openapi({ example: 'BeforeTool' }),
      tool_name: z.string().min(1).openapi({ example: 'run_shell_command' }),
    }),
    GeminiHookFields.extend({
      hook_event_name: z
        .string()
        .regex(otherThan(COMMAND_TOOL_EVENTS.gemini))
        .openapi({ example: 'SessionStart' }),
    }),
  ])
  .openapi('GeminiHookInput', {
    description:
      "Gemini CLI's command-hook stdin, as `hookgate hook --host gemini` forwards it. hook_event_name: BeforeTool → " +
      'hook.before_tool, AfterTool → hook.after_tool (these need tool_name); every other event → hook.runtime_event ' +
      '(observe mode), answered {}',
  });

const CodexHookAnswer = z
  .object({
    hookSpecificOutput: z
      .object({
        hookEventName: z.enum(['PreToolUse', 'PermissionRequest']),
        permissionDecision: z.enum(['deny', 'allow']).optional().openapi({
          description: 'allow only with updatedInput (a granted rewrite): Codex needs it to apply one',
        }),
        permissionDecisionReason: z.string().optional(),
        updatedInput: z.record(z.string(), z.unknown()).optional(),
        decision: z
          .object({ behavior: z.enum(['allow', 'deny']), message: z.string().optional() })
          .optional()
          .openapi({ description: 'PermissionRequest: allow only for tools in grants.approve_tools' }),
      })
      .optional(),
  })
  .openapi('CodexHookAnswer', { description: '{} is no objection: `hookgate hook` prints nothing' });

const CopilotHookAnswer = z
  .object({
    permissionDecision: z.enum(['deny', 'allow']).optional().openapi({
      description: "allow (skips Copilot's permission check) only for tools in grants.approve_tools",
    }),
    permissionDecisionReason: z.string().optional(),
    modifiedArgs: z.record(z.string(), z.unknown()).optional().openapi({
      description: 'the complete arguments after a granted rewrite',
    }),
  })
  .openapi('CopilotHookAnswer', { description: '{} is no objection: `hookgate hook` prints nothing' });

const GeminiHookAnswer = z
  .object({
    decision: z.literal('deny').optional(),
    reason: z.string().optional(),
    hookSpecificOutput: z
      .object({
        hookEventName: z.literal('BeforeTool'),
        tool_input: z.record(z.string(), z.unknown()).openapi({
          description: "the complete arguments after a granted rewrite (they replace the call's)",
        }),
      })
      .optional(),
  })
  .openapi('GeminiHookAnswer', { description: '{} is no objection: `hookgate hook` prints nothing' });

/** One command-hook host's route: the same answers and errors for each. */
function commandHostRoute(
  dialect: string,
  label: string,
  input: z.ZodType,
  answer: z.ZodType,
): ReturnType<typeof createRoute> {
  return createRoute({
    operationId: `callHook${label.replace(/ .*/, '')}`,
    method: 'post',
    path: `/v1/tenants/{tenant}/hooks/{hook}/${dialect}`,
    summary: `${label} command hooks through \`hookgate hook --host ${dialect}\`, answered in ${label}'s shapes under the hook's grants`,
    description:
      `Called by \`hookgate hook --host ${dialect}\` (\`hookgate setup ${dialect}\` prints the host's config). ` +
      "An authenticated call is always answered 200: when the hook is down, slow or answers garbage, with its declared failure answer in the host's shape " +
      '(on_failure: closed → a deny). Auth, size and rate-limit errors keep their status; `hookgate hook --fail-closed` then blocks the call. ' +
      `See docs/hosts/${dialect}.md for the whole mapping.`,
    security: [{ bearer: [] }],
    request: {
      params: HookParams,
      body: { required: true, content: { 'application/json': { schema: input } } },
    },
    responses: {
      200: {
        description: `The answer in ${label}'s shape, after policy`,
        content: { 'application/json': { schema: answer } },
      },
      400: {
        description: `Not a ${label} hook body (not JSON, a field of the wrong type, no tool name for a tool event)`,
        content: { 'application/json': { schema: ErrorBody } },
      },
      ...authErrors,
      413: {
        description: 'Body over server.max_body_bytes',
        content: { 'application/json': { schema: ErrorBody } },
      },
      429: {
        description: 'A call over a tenant or hook limit; Retry-After says when to try again',
        headers: z.object({
          'retry-after': z.string().openapi({ description: 'Whole seconds, at least 1' }),
        }),
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  });
}

// The approval API (docs/approvals.md): an approver token of the tenant (hookgate_role: approver).
const TenantParams = z.object({
  tenant: z.string().openapi({ param: { name: 'tenant', in: 'path' }, example: 'demo' }),
});

const ApprovalParams = TenantParams.extend({
  id: z.string().openapi({
    param: { name: 'id', in: 'path' },
    example: '0b8e4a52-8f0e-4c4b-9d1e-3f1d2c5a7b90',
    description: 'The request id (a UUID); any other value is answered 404',
  }),
});

const ApprovalRequestDoc = z
  .object({
    id: z.string(),
    tenant: z.string(),
    hook: z.string(),
    host: z.string().openapi({ description: 'The agent host the call came from', example: 'claude-code' }),
    tool: z.string(),
    args_digest: z.string().openapi({ description: "SHA-256 (hex) of the arguments' canonical JSON" }),
    config_revision: z.string(),
    created_at: z.number().int().openapi({ description: 'Epoch ms' }),
    expires_at: z.number().int().openapi({ description: 'Epoch ms; after it the request ends expired' }),
    reason: z.string().optional().openapi({ description: 'Why a person is asked (the rule’s reason)' }),
    args: z
      .unknown()
      .optional()
      .openapi({ description: 'The arguments, when the call path lets them be shown' }),
  })
  .openapi('ApprovalRequest');

const ApprovalOutcomeDoc = z
  .object({
    id: z.string(),
    decision: z.enum(['approved', 'denied', 'expired']),
    reason: z.string().optional(),
    approver: z.string().optional().openapi({ description: "The approver token's sub" }),
    decided_at: z.number().int().openapi({ description: 'Epoch ms' }),
  })
  .openapi('ApprovalOutcome');

const ApprovalDecisionBody = z
  .object({
    decision: z.enum(['approve', 'deny']),
    reason: z.string().max(1000).optional(),
    args_digest: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .openapi({ description: "When given, must be the request's: the decision is for the arguments shown" }),
  })
  .strict()
  .openapi('ApprovalDecision');

const approverErrors = {
  401: {
    description: 'Missing or invalid token, or no such tenant (WWW-Authenticate: Bearer)',
    content: { 'application/json': { schema: ErrorBody } },
  },
  403: {
    description: 'A valid token that is not an approver token of this tenant (or has no sub)',
    content: { 'application/json': { schema: ErrorBody } },
  },
};

const approvalStoreDown = {
  503: {
    description: 'The shared approval store (Redis) could not be reached',
    content: { 'application/json': { schema: ErrorBody } },
  },
};

export const routes = {
  listApprovals: createRoute({
    operationId: 'listApprovals',
    method: 'get',
    path: '/v1/tenants/{tenant}/approvals',
    summary: "The tenant's calls waiting for a person (approver token)",
    security: [{ bearer: [] }],
    request: { params: TenantParams },
    responses: {
      200: {
        description: 'Pending requests, oldest first',
        content: { 'application/json': { schema: z.object({ approvals: z.array(ApprovalRequestDoc) }) } },
      },
      ...approverErrors,
      ...approvalStoreDown,
    },
  }),
  decideApproval: createRoute({
    operationId: 'decideApproval',
    method: 'post',
    path: '/v1/tenants/{tenant}/approvals/{id}',
    summary: 'Approve or deny one waiting call (approver token); single-use',
    security: [{ bearer: [] }],
    request: {
      params: ApprovalParams,
      body: { required: true, content: { 'application/json': { schema: ApprovalDecisionBody } } },
    },
    responses: {
      200: { description: 'Decided', content: { 'application/json': { schema: ApprovalOutcomeDoc } } },
      400: {
        description: 'Not a decision (not JSON, a field missing, of the wrong type or unknown)',
        content: { 'application/json': { schema: ErrorBody } },
      },
      ...approverErrors,
      404: {
        description: 'No such request for this tenant',
        content: { 'application/json': { schema: ErrorBody } },
      },
      409: {
        description:
          'Already decided (already_decided), or args_digest is not the request’s (digest_mismatch)',
        content: { 'application/json': { schema: ErrorBody } },
      },
      410: {
        description: 'The request ended before this decision (its deadline passed, or its gateway stopped)',
        content: { 'application/json': { schema: ErrorBody } },
      },
      413: { description: 'Body over 16 KiB', content: { 'application/json': { schema: ErrorBody } } },
      ...approvalStoreDown,
    },
  }),
  approvalEvents: createRoute({
    operationId: 'approvalEvents',
    method: 'get',
    path: '/v1/tenants/{tenant}/approvals/events',
    summary: 'Server-Sent Events: new and decided requests of the tenant, live (approver token)',
    description:
      'Events: `ready` once subscribed (list after it and nothing is missed), `created` (an ApprovalRequest), ' +
      '`decided` (an ApprovalOutcome). The token goes in the Authorization header, so read it with fetch() ' +
      'streaming, not EventSource. The stream ends when the token expires.',
    security: [{ bearer: [] }],
    request: { params: TenantParams },
    responses: {
      200: { description: 'The event stream', content: { 'text/event-stream': { schema: z.string() } } },
      ...approverErrors,
    },
  }),
  call: createRoute({
    operationId: 'callHook',
    method: 'post',
    path: '/v1/tenants/{tenant}/hooks/{hook}',
    summary: 'Send one JSON-RPC message to a hook',
    security: [{ bearer: [] }],
    request: {
      params: HookParams,
      body: { required: true, content: { 'application/json': { schema: JsonRpcMessage } } },
    },
    responses: {
      200: {
        description: 'The JSON-RPC response, after policy',
        content: { 'application/json': { schema: JsonRpcResponse } },
      },
      202: { description: 'A notification was accepted' },
      400: {
        description:
          'Not a JSON-RPC request or notification this route takes (not JSON, a batch, a bad envelope, params not an object): the JSON-RPC error, id null unless the message had a valid one',
        content: { 'application/json': { schema: JsonRpcResponse } },
      },
      ...authErrors,
      413: {
        description: 'Message over server.max_body_bytes',
        content: { 'application/json': { schema: ErrorBody } },
      },
      429: {
        description:
          'A call over a tenant or hook limit (rate or calls in flight); Retry-After says when to try again. Notifications over a limit are dropped and still answered 202.',
        headers: z.object({
          'retry-after': z.string().openapi({ description: 'Whole seconds, at least 1' }),
        }),
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  }),
  claudeCode: createRoute({
    operationId: 'callHookClaudeCode',
    method: 'post',
    path: '/v1/tenants/{tenant}/hooks/{hook}/claude-code',
    summary: "Claude Code HTTP hooks: any event, answered in Claude Code's shapes under the hook's grants",
    description:
      'Point a Claude Code `type: "http"` hook here (`hookgate setup claude-code` prints the settings). ' +
      'Claude Code ignores the body of a non-2xx answer, so an authenticated call is always answered 200: ' +
      "when the hook is down, slow or answers garbage, with its declared failure answer in Claude Code's shape " +
      '(on_failure: closed → PreToolUse deny, PermissionRequest deny, UserPromptSubmit block). ' +
      "Auth, size and rate-limit errors keep their status; the handler's onFailure decides what Claude Code does then. " +
      'See docs/hosts/claude-code.md for the whole mapping.',
    security: [{ bearer: [] }],
    request: {
      params: HookParams,
      body: { required: true, content: { 'application/json': { schema: ClaudeCodeHookInput } } },
    },
    responses: {
      200: {
        description: "The answer in Claude Code's shape, after policy",
        content: { 'application/json': { schema: ClaudeCodeHookAnswer } },
      },
      400: {
        description:
          'Not a Claude Code hook body (not JSON, no hook_event_name, no tool_name for a tool event)',
        content: { 'application/json': { schema: ErrorBody } },
      },
      ...authErrors,
      413: {
        description: 'Body over server.max_body_bytes',
        content: { 'application/json': { schema: ErrorBody } },
      },
      429: {
        description: 'A call over a tenant or hook limit; Retry-After says when to try again',
        headers: z.object({
          'retry-after': z.string().openapi({ description: 'Whole seconds, at least 1' }),
        }),
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  }),
  hermes: createRoute({
    operationId: 'callHookHermes',
    method: 'post',
    path: '/v1/tenants/{tenant}/hooks/{hook}/hermes',
    summary:
      "Hermes shell hooks: any event, answered with what the shell hook prints, under the hook's grants",
    description:
      'Called by `hookgate hermes-hook` (a Hermes shell hook; `hookgate setup hermes` prints the config). ' +
      "An authenticated call is always answered 200: when the hook is down, slow or answers garbage, with its declared failure answer in Hermes's shape " +
      '(on_failure: closed → pre_tool_call block). Auth, size and rate-limit errors keep their status; ' +
      'the shell hook then fails closed or open as configured. See docs/hosts/hermes.md for the whole mapping.',
    security: [{ bearer: [] }],
    request: {
      params: HookParams,
      body: { required: true, content: { 'application/json': { schema: HermesHookInput } } },
    },
    responses: {
      200: {
        description: "The answer in Hermes's shape, after policy",
        content: { 'application/json': { schema: HermesHookAnswer } },
      },
      400: {
        description:
          'Not a Hermes hook payload (not JSON, no hook_event_name, no tool_name for a tool event)',
        content: { 'application/json': { schema: ErrorBody } },
      },
      ...authErrors,
      413: {
        description: 'Body over server.max_body_bytes',
        content: { 'application/json': { schema: ErrorBody } },
      },
      429: {
        description: 'A call over a tenant or hook limit; Retry-After says when to try again',
        headers: z.object({
          'retry-after': z.string().openapi({ description: 'Whole seconds, at least 1' }),
        }),
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  }),
  openclaw: createRoute({
    operationId: 'callHookOpenClaw',
    method: 'post',
    path: '/v1/tenants/{tenant}/hooks/{hook}/openclaw',
    summary:
      "OpenClaw plugin hooks (via the hookgate plugin), answered in OpenClaw's shapes under the hook's grants",
    description:
      'The hookgate OpenClaw plugin (integrations/openclaw) forwards each hook here. An authenticated call is always ' +
      "answered 200: when the hook is down, slow or answers garbage, with its declared failure answer in OpenClaw's shape " +
      '(on_failure: closed → before_tool_call blocked). Auth, size and rate-limit errors keep their status; the plugin ' +
      'then blocks before_tool_call with a reason naming the failure. See docs/hosts/openclaw.md for the whole mapping.',
    security: [{ bearer: [] }],
    request: {
      params: HookParams,
      body: { required: true, content: { 'application/json': { schema: OpenClawHookInput } } },
    },
    responses: {
      200: {
        description:
          "The handler result in OpenClaw's shape, after policy (a tool result for hookgate.execute_tool)",
        content: { 'application/json': { schema: z.union([OpenClawHookAnswer, OpenClawToolResult]) } },
      },
      400: {
        description:
          'Not a forwarded OpenClaw hook (not JSON, no hook, no event, no toolName for a tool hook)',
        content: { 'application/json': { schema: ErrorBody } },
      },
      ...authErrors,
      413: {
        description: 'Body over server.max_body_bytes',
        content: { 'application/json': { schema: ErrorBody } },
      },
      429: {
        description: 'A call over a tenant or hook limit; Retry-After says when to try again',
        headers: z.object({
          'retry-after': z.string().openapi({ description: 'Whole seconds, at least 1' }),
        }),
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  }),
  codex: commandHostRoute('codex', 'Codex', CodexHookInput, CodexHookAnswer),
  copilot: commandHostRoute('copilot', 'Copilot CLI', CopilotHookInput, CopilotHookAnswer),
  gemini: commandHostRoute('gemini', 'Gemini CLI', GeminiHookInput, GeminiHookAnswer),
  describe: createRoute({
    operationId: 'describeHook',
    method: 'get',
    path: '/v1/tenants/{tenant}/hooks/{hook}',
    summary: 'Describe a hook: protocol version, modes, tools, limits, failure modes',
    security: [{ bearer: [] }],
    request: { params: HookParams },
    responses: {
      200: { description: 'The hook', content: { 'application/json': { schema: HookDescription } } },
      ...authErrors,
    },
  }),
  ws: createRoute({
    operationId: 'connectHookWebSocket',
    method: 'get',
    path: '/v1/tenants/{tenant}/hooks/{hook}/ws',
    summary: 'WebSocket upgrade: multiplexed JSON-RPC, one message per text frame',
    description:
      'Token in Authorization, or as a Sec-WebSocket-Protocol entry "bearer.<token>" next to "hookgate.v1". ' +
      'Close codes, one meaning each (src/lib/close-codes.ts): ' +
      '1001 gateway shutting down (reconnect); ' +
      '1008 token no longer accepted, its key was removed by a config reload (get a new token); ' +
      '1009 message over server.max_body_bytes (reconnect, do not resend it); ' +
      '1011 gateway error (reconnect); ' +
      '1013 slow consumer: answers were not read fast enough (reconnect with backoff; the token is fine); ' +
      '4001 token expired (get a new token); ' +
      '4004 hook or tenant removed by a config reload (give up until the config changes). ' +
      'Calls in flight when a hook is removed are answered before its 4004 close.',
    security: [{ bearer: [] }],
    request: { params: HookParams },
    responses: {
      101: { description: 'Switching protocols' },
      ...authErrors,
      426: { description: 'Not a WebSocket upgrade' },
    },
  }),
  mcp: createRoute({
    operationId: 'mcpHook',
    method: 'post',
    path: '/v1/tenants/{tenant}/hooks/{hook}/mcp',
    summary: "The hook's tools as an MCP server (Streamable HTTP, stateless, JSON answers)",
    description:
      'tools/list lists the hook\'s `tools`, narrowed by the token\'s `tools` claim, each described by the hook\'s `tool_definitions`, else by the SDK hook\'s declaration, else by what the hook injects in hook.before_llm (asked once per backend start), else as `{"type":"object"}`. ' +
      'tools/call is sent to the hook as hook.before_tool through the same call path as the hook-protocol route (mode gate, minimisation, deadline, policy, audit, metrics, limits): `respond` is the result, `deny_tool` and anything else an error result (isError). ' +
      'A tool outside the list is refused (JSON-RPC error -32602) before the hook sees it. ' +
      'Speaks MCP 2026-07-28 (a request carrying the `_meta` protocol-version envelope, with MCP-Protocol-Version, Mcp-Method and Mcp-Name mirroring the body; server/discover answered) and the 2025 revisions 2025-03-26 to 2025-11-25 (initialize) on the same URL. ' +
      'The client must send Content-Type: application/json (415 otherwise); a 2025-era client must accept both application/json and text/event-stream (406 otherwise), as the transport requires. ' +
      'The server keeps no session and opens no server-to-client stream, so GET and DELETE (after auth) answer 405 with Allow: POST, as the Streamable HTTP transport allows; they are not operations of this document.',
    security: [{ bearer: [] }],
    request: {
      params: HookParams,
      body: {
        required: true,
        content: { 'application/json': { schema: z.union([McpMessage, z.array(McpMessage).min(1)]) } },
      },
    },
    responses: {
      200: {
        description: 'The JSON-RPC response (or an array of them for a batch)',
        content: {
          'application/json': { schema: z.union([JsonRpcResponse, z.array(JsonRpcResponse)]) },
        },
      },
      202: { description: 'Only notifications or responses were sent' },
      400: {
        description:
          'Not JSON, or not a JSON-RPC message (a JSON-RPC error, id null); for 2026-07-28, headers that disagree with the body, a bad envelope or an unsupported protocol version (a JSON-RPC error)',
        content: { 'application/json': { schema: JsonRpcResponse } },
      },
      ...authErrors,
      406: {
        description:
          'A 2025-era request whose Accept does not list both application/json and text/event-stream',
        content: { 'application/json': { schema: JsonRpcResponse } },
      },
      413: {
        description: 'Message over server.max_body_bytes',
        content: { 'application/json': { schema: ErrorBody } },
      },
      415: {
        description: 'Content-Type is not application/json',
        content: { 'application/json': { schema: JsonRpcResponse } },
      },
      429: {
        description:
          'A single call whose hook call a tenant or hook limit refused (tools/call, or tools/list when it has to ask the hook); Retry-After says when to try again. In a batch the refused call is answered in place instead.',
        headers: z.object({
          'retry-after': z.string().openapi({ description: 'Whole seconds, at least 1' }),
        }),
        content: { 'application/json': { schema: ErrorBody } },
      },
      503: {
        description: 'The gateway is shutting down',
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  }),
  healthz: createRoute({
    operationId: 'healthz',
    security: [],
    method: 'get',
    path: '/healthz',
    summary: 'Liveness',
    responses: {
      200: {
        description: 'The process is up',
        content: { 'application/json': { schema: z.object({ ok: z.boolean() }) } },
      },
    },
  }),
  readyz: createRoute({
    operationId: 'readyz',
    security: [{}, { admin: [] }],
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: every hook backend can serve',
    description:
      'Without credentials only `{"ready": bool}`; with the admin token also `not_ready`, which names tenants and hooks.',
    responses: {
      200: { description: 'Ready', content: { 'application/json': { schema: Readiness } } },
      401: adminErrors[401],
      503: {
        description: 'Some backends are not ready',
        content: { 'application/json': { schema: Readiness } },
      },
    },
  }),
  metrics: createRoute({
    operationId: 'metrics',
    security: [{ admin: [] }],
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (admin token)',
    responses: {
      200: { description: 'Prometheus text format', content: { 'text/plain': { schema: z.string() } } },
      ...adminErrors,
    },
  }),
  reload: createRoute({
    operationId: 'reloadConfig',
    security: [{ admin: [] }],
    method: 'post',
    path: '/admin/reload',
    summary: 'Re-read the config file and apply it without a restart (Node; the same as SIGHUP)',
    description:
      'The new config is compiled and every backend for a new or changed hook built before anything changes; a bad config changes nothing. Unchanged hooks keep their backend (and process). Removed hooks finish their calls in flight, then their WebSockets close with 4004. A tenant whose keys changed gets a new verifier at once; its open WebSockets are re-checked and closed with 1008 when their token no longer verifies.',
    responses: {
      200: { description: 'Applied', content: { 'application/json': { schema: ReloadSummary } } },
      400: {
        description: 'The new config is invalid; nothing changed',
        content: { 'application/json': { schema: ConfigInvalid } },
      },
      ...adminErrors,
      501: {
        description: 'Not available on this runtime (Workers get their config by redeploy)',
        content: { 'application/json': { schema: ErrorBody } },
      },
    },
  }),
};

export function buildOpenApiDocument(): Record<string, unknown> {
  const app = new OpenAPIHono();
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'admin', {
    type: 'http',
    scheme: 'bearer',
    description: 'server.admin_token (an opaque secret, not a JWT)',
  });
  for (const r of Object.values(routes)) app.openAPIRegistry.registerPath(r);
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'hookgate',
      version: '0.1.0',
      description: "PicoClaw's hook protocol over HTTP and WebSocket, with JWT auth and per-tenant grants.",
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    // Relative: resolved against wherever this document was fetched from, so the docs page's
    // "Try it out" calls the gateway serving it (any host, port or scheme, Node or Worker, behind
    // a proxy too) and stays within its same-origin CSP.
    servers: [{ url: '/', description: 'the gateway serving this document' }],
    tags: [],
  }) as unknown as Record<string, unknown>;
}
