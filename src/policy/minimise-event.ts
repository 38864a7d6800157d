import { Method } from '../protocol/methods.js';
import { isPlainObject } from './equal.js';
import { CONTEXT } from './turn-context.js';
import { PASS, type Shape, WITHHOLD, withhold } from './withhold.js';

/**
 * Runtime events without `conversation_access`: the fields each event kind carries that are known to
 * be free of conversation text pass; the rest (the user's message, the final answer, tool arguments,
 * tool output, error texts from the LLM and tools, which can quote either) is sent empty. A kind
 * this table does not know keeps only its envelope: every string of its payload and attrs is
 * withheld.
 *
 * Source: PicoClaw's `pkg/events` (envelope, kinds), `pkg/agent/event_payloads.go` (agent payloads,
 * PascalCase: no json tags) and the channel, bus, gateway and MCP emitters (snake_case tags).
 */
export function minimiseEvent(method: string, params: unknown): unknown {
  if (!isPlainObject(params)) return withhold(params, WITHHOLD);
  // By its form rather than the method name alone: a host may send either envelope as hook.event.
  if (method === Method.LegacyEvent && !Object.hasOwn(params, 'kind')) {
    return withhold(params, legacyShape(params.Kind));
  }
  const kind = typeof params.kind === 'string' ? params.kind : '';
  const known = KINDS.get(kind);
  return withhold(params, {
    ...ENVELOPE,
    payload: known?.payload ?? WITHHOLD,
    attrs: known?.attrs ?? WITHHOLD,
  });
}

const ENVELOPE = {
  id: PASS,
  kind: PASS,
  time: PASS,
  source: { component: PASS, name: PASS },
  scope: {
    runtime_id: PASS,
    agent_id: PASS,
    session_key: PASS,
    turn_id: PASS,
    channel: PASS,
    account: PASS,
    chat_id: PASS,
    topic_id: PASS,
    space_id: PASS,
    space_type: PASS,
    chat_type: PASS,
    sender_id: PASS,
    message_id: PASS,
  },
  correlation: { trace_id: PASS, parent_turn_id: PASS, request_id: PASS, reply_to_id: PASS },
  severity: PASS,
} as const;

interface KindShape {
  payload: Shape;
  attrs: Shape;
}

const AGENT_ATTRS: Shape = { agent_source: PASS, iteration: PASS };

/** Agent payloads; a field left out of a shape (UserMessage, FinalContent, …) is withheld. */
const AGENT_PAYLOADS: Record<string, Shape> = {
  'agent.turn.start': { MediaCount: PASS }, // UserMessage withheld
  'agent.turn.end': {
    // UserMessage and FinalContent withheld
    Status: PASS,
    Workspace: PASS,
    Iterations: PASS,
    Duration: PASS,
    FinalContentLen: PASS,
    ActiveSkills: PASS,
    AttemptedSkills: PASS,
    FinalSuccessfulPath: PASS,
    SkillContextSnapshots: PASS,
    ToolKinds: PASS,
    // error_summary is the failed tool's output
    ToolExecutions: { name: PASS, success: PASS, skill_names: PASS },
  },
  'agent.llm.request': {
    Model: PASS,
    MessagesCount: PASS,
    ToolsCount: PASS,
    MaxTokens: PASS,
    Temperature: PASS,
  },
  'agent.llm.delta': { ContentDeltaLen: PASS, ReasoningDeltaLen: PASS },
  'agent.llm.response': { ContentLen: PASS, ToolCalls: PASS, HasReasoning: PASS },
  // Error is the provider's error text, which can quote the request
  'agent.llm.retry': { Attempt: PASS, MaxRetries: PASS, Reason: PASS, Backoff: PASS },
  'agent.context.compress': { Reason: PASS, DroppedMessages: PASS, RemainingMessages: PASS },
  'agent.session.summarize': {
    SummarizedMessages: PASS,
    KeptMessages: PASS,
    SummaryLen: PASS,
    OmittedOversized: PASS,
  },
  'agent.tool.exec_start': { Tool: PASS }, // Arguments withheld: an observer is not asked about the call
  'agent.tool.exec_end': {
    Tool: PASS,
    Duration: PASS,
    ForLLMLen: PASS,
    ForUserLen: PASS,
    IsError: PASS,
    Async: PASS,
  },
  'agent.tool.exec_skipped': { Tool: PASS }, // Reason carries a hook's or approver's free text
  'agent.steering.injected': { Count: PASS, TotalContentLen: PASS },
  'agent.follow_up.queued': { SourceTool: PASS, ContentLen: PASS },
  'agent.interrupt.received': {
    Kind: PASS,
    Role: PASS,
    ContentLen: PASS,
    QueueDepth: PASS,
    HintLen: PASS,
  },
  'agent.subturn.spawn': { AgentID: PASS, Label: PASS, ParentTurnID: PASS },
  'agent.subturn.end': { AgentID: PASS, Status: PASS },
  'agent.subturn.result_delivered': { TargetChannel: PASS, TargetChatID: PASS, ContentLen: PASS },
  'agent.subturn.orphan': { ParentTurnID: PASS, ChildTurnID: PASS, Reason: PASS },
  'agent.error': { Stage: PASS }, // Message is an error text from the LLM path
};

// Infrastructure errors (a channel that failed to start, an MCP server that did not connect) pass:
// they are not made from anything said in a conversation.
const CHANNEL_LIFECYCLE: KindShape = {
  payload: { type: PASS, error: PASS },
  attrs: { type: PASS, error: PASS },
};
const CHANNEL_OUTBOUND: KindShape = {
  payload: {
    media: PASS,
    content_len: PASS,
    message_ids: PASS,
    reply_to_message_id: PASS,
    error: PASS,
    retries: PASS,
  },
  attrs: {
    media: PASS,
    content_len: PASS,
    message_ids_count: PASS,
    reply_to_message_id: PASS,
    error: PASS,
    retries: PASS,
  },
};
const BUS: KindShape = {
  payload: { stream: PASS, error: PASS, drained: PASS },
  attrs: { stream: PASS, error: PASS, drained: PASS },
};
/** Bus backpressure (PicoClaw v0.3.x, `pkg/bus/events.go`): counts and a fixed reason, no text. */
const BUS_DROPPED_FIELDS: Shape = {
  stream: PASS,
  reason: PASS,
  wait_ms: PASS,
  queue_depth: PASS,
  queue_capacity: PASS,
  dropped_total: PASS,
};
const BUS_DROPPED: KindShape = { payload: BUS_DROPPED_FIELDS, attrs: BUS_DROPPED_FIELDS };
const GATEWAY: KindShape = {
  payload: { duration_ms: PASS, error: PASS },
  attrs: { duration_ms: PASS, error: PASS },
};
const MCP_SERVER: KindShape = {
  payload: {
    server: PASS,
    type: PASS,
    url: PASS,
    command: PASS,
    tool: PASS,
    tool_count: PASS,
    error: PASS,
  },
  attrs: { server: PASS, type: PASS, tool: PASS, tool_count: PASS, error: PASS },
};
/** An MCP tool call's error is the tool's own output: withheld. */
const MCP_TOOL_CALL: KindShape = {
  payload: { server: PASS, tool: PASS, duration_ms: PASS, is_error: PASS },
  attrs: { server: PASS, tool: PASS, duration_ms: PASS, is_error: PASS },
};

const KINDS: ReadonlyMap<string, KindShape> = new Map<string, KindShape>([
  ...Object.entries(AGENT_PAYLOADS).map(
    ([kind, payload]) => [kind, { payload, attrs: AGENT_ATTRS }] as [string, KindShape],
  ),
  ['channel.lifecycle.started', CHANNEL_LIFECYCLE],
  ['channel.lifecycle.initialized', CHANNEL_LIFECYCLE],
  ['channel.lifecycle.start_failed', CHANNEL_LIFECYCLE],
  ['channel.lifecycle.stopped', CHANNEL_LIFECYCLE],
  ['channel.webhook.registered', CHANNEL_LIFECYCLE],
  ['channel.webhook.unregistered', CHANNEL_LIFECYCLE],
  ['channel.message.outbound_queued', CHANNEL_OUTBOUND],
  ['channel.message.outbound_sent', CHANNEL_OUTBOUND],
  ['channel.message.outbound_failed', CHANNEL_OUTBOUND],
  ['channel.rate_limited', CHANNEL_OUTBOUND],
  ['bus.publish.failed', BUS],
  ['bus.close.started', BUS],
  ['bus.close.completed', BUS],
  ['bus.close.drained', BUS],
  ['bus.message.dropped', BUS_DROPPED],
  ['gateway.start', GATEWAY],
  ['gateway.ready', GATEWAY],
  ['gateway.shutdown', GATEWAY],
  ['gateway.reload.started', GATEWAY],
  ['gateway.reload.completed', GATEWAY],
  ['gateway.reload.failed', GATEWAY],
  ['mcp.server.connected', MCP_SERVER],
  ['mcp.server.connecting', MCP_SERVER],
  ['mcp.server.failed', MCP_SERVER],
  ['mcp.tool.discovered', MCP_SERVER],
  ['mcp.tool.call.start', MCP_TOOL_CALL],
  ['mcp.tool.call.end', MCP_TOOL_CALL],
]);

/**
 * The older `hook.event` (PicoClaw before its runtime event bus) sent the agent `Event` struct, with
 * no json tags: `{Kind, Time, Meta, Context, Payload}`, where Kind is the EventKind number. Its
 * payloads are the same agent payload structs, in this order of kinds.
 */
const LEGACY_KINDS = [
  'agent.turn.start',
  'agent.turn.end',
  'agent.llm.request',
  'agent.llm.delta',
  'agent.llm.response',
  'agent.llm.retry',
  'agent.context.compress',
  'agent.session.summarize',
  'agent.tool.exec_start',
  'agent.tool.exec_end',
  'agent.tool.exec_skipped',
  'agent.steering.injected',
  'agent.follow_up.queued',
  'agent.interrupt.received',
  'agent.subturn.spawn',
  'agent.subturn.end',
  'agent.subturn.result_delivered',
  'agent.subturn.orphan',
  'agent.error',
] as const;

function legacyShape(kind: unknown): Shape {
  const name = typeof kind === 'number' && Number.isInteger(kind) ? LEGACY_KINDS[kind] : undefined;
  const payload = name !== undefined && Object.hasOwn(AGENT_PAYLOADS, name) ? AGENT_PAYLOADS[name] : WITHHOLD;
  return { Kind: PASS, Time: PASS, Meta: PASS, Context: CONTEXT, Payload: payload };
}
