import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible Chat Completions server on 127.0.0.1: its first answer asks for one
 * tool call, every later one (after the tool result) ends the run with text. Streams when asked.
 */
export interface FakeModel {
  url: string;
  /** The `role: "tool"` messages OpenClaw sent back: what the model was told the tool did. */
  toolMessages: string[];
  /** The function tools OpenClaw offered in its first request, by name. */
  offered: Map<string, { description?: string; parameters?: unknown }>;
  requests: number;
  close(): Promise<void>;
}

/** The one call the fake model asks for. */
export interface ToolCallSpec {
  name: string;
  arguments: Record<string, unknown>;
}

export const FINAL_TEXT = 'hookgate-e2e: saw the tool result, done.';

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return JSON.stringify(content ?? '');
}

/** `command` is shorthand for one `exec` call running it. */
export async function startFakeModel(call: string | ToolCallSpec): Promise<FakeModel> {
  const spec: ToolCallSpec = typeof call === 'string' ? { name: 'exec', arguments: { command: call } } : call;
  const model: FakeModel = {
    url: '',
    toolMessages: [],
    offered: new Map(),
    requests: 0,
    close: async () => {},
  };
  let n = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    if (req.method === 'GET' && req.url?.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'hookgate-fake', object: 'model' }] }));
      return;
    }
    if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
      res.writeHead(404).end();
      return;
    }
    model.requests++;
    const body = JSON.parse(raw || '{}');
    const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
    const tools = messages.filter((m) => m?.role === 'tool');
    const id = `chatcmpl-hookgate-${++n}`;
    let delta: Record<string, unknown>;
    let finish: string;
    if (model.requests === 1 && Array.isArray(body.tools)) {
      for (const t of body.tools) {
        if (t?.type === 'function' && typeof t.function?.name === 'string')
          model.offered.set(t.function.name, {
            description: t.function.description,
            parameters: t.function.parameters,
          });
      }
    }
    if (tools.length === 0) {
      delta = {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            index: 0,
            id: `callhookgate${n}`,
            type: 'function',
            function: { name: spec.name, arguments: JSON.stringify(spec.arguments) },
          },
        ],
      };
      finish = 'tool_calls';
    } else {
      model.toolMessages.push(...tools.map((m) => text(m.content)));
      delta = { role: 'assistant', content: FINAL_TEXT };
      finish = 'stop';
    }
    const usage = { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 };
    const created = Math.floor(Date.now() / 1000);
    if (body.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (choice: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: 'hookgate-fake', choices: [choice], ...extra })}\n\n`;
      res.write(chunk({ index: 0, delta, finish_reason: null }));
      res.write(chunk({ index: 0, delta: {}, finish_reason: finish }, { usage }));
      res.end('data: [DONE]\n\n');
      return;
    }
    const { index: _i, ...message } = delta as any;
    if (Array.isArray(message.tool_calls))
      message.tool_calls = message.tool_calls.map(({ index, ...t }: any) => t);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: 'hookgate-fake',
        choices: [{ index: 0, message, finish_reason: finish }],
        usage,
      }),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  model.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return model;
}
