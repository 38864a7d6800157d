import type { Attributes } from '@opentelemetry/api';
import { Method } from '../../protocol/methods.js';
import type { Decision } from '../decision.js';

/**
 * A call's span attributes, read off its final decision: OpenTelemetry's GenAI and MCP semantic
 * conventions where they fit, `hookgate.*` for the rest. Names and ids only: never a token, an
 * argument value, a message or the hook's answer (a span leaves the gateway for a collector that
 * may keep it longer and show it wider than the decision records).
 */
export function callAttributes(d: Decision): Attributes {
  const a: Attributes = {
    'hookgate.tenant': d.tenant,
    'hookgate.hook': d.hook,
    'hookgate.dialect': d.dialect,
    'hookgate.method': d.method,
    'hookgate.decision.id': d.id,
    'hookgate.decision.kind': d.kind,
    'hookgate.config.revision': d.configRevision,
  };
  if (d.requestId !== undefined) a['hookgate.request.id'] = d.requestId;
  if (d.tool !== undefined) {
    // The hook gates (or, over MCP, runs) a tool call: GenAI's execute_tool operation.
    a['gen_ai.operation.name'] = 'execute_tool';
    a['gen_ai.tool.name'] = d.tool;
    const callId = d.params.tool_call_id;
    if (typeof callId === 'string' && callId.length > 0) a['gen_ai.tool.call.id'] = callId;
  }
  const mcpMethod = mcpMethodOf(d);
  if (mcpMethod !== undefined) a['mcp.method.name'] = mcpMethod;
  if (d.violations.length > 0) a['hookgate.violation.rules'] = d.violations.map((v) => v.rule);
  if (d.failure !== undefined) {
    a['error.type'] = d.failure.code;
    a['hookgate.failure.on_failure'] = d.failure.onFailure;
  }
  if (d.limit !== undefined) {
    a['hookgate.limit.name'] = d.limit.name;
    a['hookgate.limit.retry_after_ms'] = d.limit.retryAfterMs;
  }
  return a;
}

/** The MCP method a call of the MCP route came in as: tools/call runs a tool, tools/list asks before_llm. */
function mcpMethodOf(d: Decision): string | undefined {
  if (d.dialect !== 'mcp') return undefined;
  if (d.method === Method.BeforeTool) return 'tools/call';
  if (d.method === Method.BeforeLlm) return 'tools/list';
  return undefined;
}

/** The SERVER span's name: `tools/call get_weather` over MCP, `hook.before_tool get_weather` otherwise. */
export function callSpanName(d: Decision): string {
  const verb = mcpMethodOf(d) ?? d.method;
  return d.tool === undefined ? verb : `${verb} ${d.tool}`;
}
