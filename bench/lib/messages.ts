/**
 * The two benchmark messages, shaped like shared/protocol/fixtures (PicoClaw's Go encoder order:
 * PascalCase `meta`, mixed-case `context`, snake_case provider types). Deterministic: the same
 * bytes every run, so figures from different runs compare.
 *
 * - small: `hook.before_tool` for `get_weather` (answered `respond` by examples/weather-sdk.ts).
 *   `context` is left out, as PicoClaw does when a turn has none (`*TurnContext` is omitempty);
 *   with the fixture's full context the line would be ~750 B instead of ~320 B.
 * - large: `hook.before_llm` of ~64 KiB: a long conversation with tool calls and 30 tool
 *   definitions, `get_weather` among them, so the weather hook injects nothing and answers `continue`.
 */

export type MessageName = 'small' | 'large';

const SESSION_KEY = `sk_v1_${'d6440983c454c2e5999fdb66bbe9cf5f89a8f5847d6c9578ef14afd26eee122c'}`;

function meta(tracePath: string, iteration: number): Record<string, unknown> {
  return {
    AgentID: 'main',
    TurnID: 'main-turn-7',
    ParentTurnID: '',
    SessionKey: SESSION_KEY,
    Iteration: iteration,
    TracePath: tracePath,
    Source: 'runTurn',
  };
}

const CONTEXT = {
  inbound: {
    channel: 'telegram',
    chat_id: '123456789',
    chat_type: 'direct',
    sender_id: '987654321',
    message_id: '4711',
  },
  route: {
    AgentID: 'main',
    Channel: 'telegram',
    AccountID: 'default',
    SessionPolicy: { Dimensions: ['chat'], IdentityLinks: null },
    MatchedBy: 'default',
  },
  scope: {
    version: 1,
    agent_id: 'main',
    channel: 'telegram',
    account: 'default',
    dimensions: ['chat'],
    values: { chat: 'direct:123456789' },
  },
};

export function smallParams(): Record<string, unknown> {
  return {
    meta: meta('turn.tool.before', 1),
    tool: 'get_weather',
    arguments: { city: 'Berlin' },
  };
}

const WORDS =
  'the agent reads the workspace files and plans the next step before calling a tool with careful arguments ' +
  'so that the user gets a short answer about weather travel notes budgets and the calendar for next week';

/** Deterministic filler text of about `chars` characters. */
function text(seed: number, chars: number): string {
  const words = WORDS.split(' ');
  const out: string[] = [];
  let len = 0;
  let i = seed * 7;
  while (len < chars) {
    const w = words[i % words.length];
    out.push(w);
    len += w.length + 1;
    i += 3 + (seed % 5);
  }
  return out.join(' ');
}

function toolDefinition(i: number): Record<string, unknown> {
  if (i === 0) {
    // The weather hook's own tool, as its SDK renders it: present already, so nothing is injected.
    return {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather for a city',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string', minLength: 1, description: 'City name' } },
          required: ['city'],
          additionalProperties: false,
        },
      },
    };
  }
  const names = ['exec', 'read_file', 'write_file', 'list_dir', 'web_search', 'web_fetch', 'send_message'];
  const name = i < names.length + 1 ? names[i - 1] : `workspace_tool_${String(i).padStart(2, '0')}`;
  return {
    type: 'function',
    function: {
      name,
      description: text(i, 160),
      parameters: {
        properties: {
          path: { description: 'Path inside the workspace', type: 'string' },
          query: { description: text(i + 40, 60), type: 'string' },
          limit: { description: 'Largest number of entries to return', type: 'integer' },
        },
        required: ['path'],
        type: 'object',
      },
    },
  };
}

/** A before_llm request of about `targetBytes` on the wire (the JSON-RPC line, newline excluded). */
export function largeParams(targetBytes = 64 * 1024): Record<string, unknown> {
  const tools = Array.from({ length: 30 }, (_, i) => toolDefinition(i));
  const system = 'You are PicoClaw, a helpful assistant. ' + text(1, 1200);
  const messages: Record<string, unknown>[] = [
    {
      role: 'system',
      content: system,
      system_parts: [{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }],
    },
  ];
  const params: Record<string, unknown> = {
    meta: meta('turn.llm.request', 3),
    context: CONTEXT,
    model: 'gpt-4o-mini',
    messages,
    tools,
    options: { max_tokens: 8192, prompt_cache_key: 'main', temperature: 0.7 },
  };
  const size = () => JSON.stringify({ jsonrpc: '2.0', id: 100000, method: 'hook.before_llm', params }).length;
  // Turns of user → assistant(tool call) → tool → assistant until the target size.
  for (let turn = 0; size() < targetBytes - 600; turn++) {
    messages.push({ role: 'user', content: text(turn + 10, 300) });
    const callId = `call_${String(turn).padStart(4, '0')}`;
    messages.push({
      role: 'assistant',
      content: '',
      tool_calls: [
        {
          id: callId,
          type: 'function',
          function: { name: 'read_file', arguments: JSON.stringify({ path: `notes/day-${turn}.md` }) },
        },
      ],
    });
    messages.push({ role: 'tool', content: text(turn + 20, 600), tool_call_id: callId });
    messages.push({ role: 'assistant', content: text(turn + 30, 250) });
  }
  messages.push({ role: 'user', content: 'And what is the weather in Berlin tomorrow?' });
  return params;
}

export const METHOD: Record<MessageName, string> = {
  small: 'hook.before_tool',
  large: 'hook.before_llm',
};

/** What the weather hook answers (after the gateway's policy), as a canned reply for the echo floors. */
export const ANSWER: Record<MessageName, unknown> = {
  small: {
    action: 'respond',
    result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
  },
  large: { action: 'continue' },
};

/**
 * A message as a line template: `head + id + tail` is the JSON-RPC request text, so a client can
 * give each call its own id without re-serialising the payload.
 */
export interface MessageTemplate {
  name: MessageName;
  method: string;
  head: string;
  tail: string;
  /** Bytes of one request with a 6-digit id. */
  bytes: number;
  /** Bytes of head + tail (add the id's digits for a request's length). */
  baseBytes: number;
}

export function template(name: MessageName): MessageTemplate {
  const params = name === 'small' ? smallParams() : largeParams();
  const method = METHOD[name];
  const head = '{"jsonrpc":"2.0","id":';
  const tail = `,"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
  const baseBytes = Buffer.byteLength(head + tail);
  return { name, method, head, tail, bytes: baseBytes + 6, baseBytes };
}

export function requestText(t: MessageTemplate, id: number): string {
  return t.head + id + t.tail;
}
