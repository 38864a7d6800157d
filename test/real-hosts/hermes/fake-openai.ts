import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI-compatible chat completions API on 127.0.0.1 for Hermes: a request without a tool
 * result gets one tool call (a `terminal` call running `command`, or the given call); a request
 * carrying a tool result gets a short final text. Streams when asked (Hermes does). Hermes's
 * endpoint probes (`/models`, `/props`, …) get 404. It records the tool results the model got back
 * and the tools it was offered.
 */
export interface FakeModel {
  url: string;
  /** The `tool` messages Hermes sent back, in order. */
  toolResults: string[];
  /** The function tools of the first request, by name. */
  offered: Map<string, { description?: string; parameters?: unknown }>;
  close(): Promise<void>;
}

export async function startFakeModel(
  call: string | { name: string; arguments: Record<string, unknown> },
): Promise<FakeModel> {
  const spec = typeof call === 'string' ? { name: 'terminal', arguments: { command: call } } : call;
  const model: FakeModel = { url: '', toolResults: [], offered: new Map(), close: async () => {} };
  let asked = false;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(raw) as {
        stream?: boolean;
        model?: string;
        messages?: Record<string, unknown>[];
        tools?: { type?: string; function?: { name?: string; description?: string; parameters?: unknown } }[];
      };
      if (!asked && Array.isArray(body.tools)) {
        for (const t of body.tools) {
          if (t?.type === 'function' && typeof t.function?.name === 'string')
            model.offered.set(t.function.name, {
              description: t.function.description,
              parameters: t.function.parameters,
            });
        }
      }
      const results = (body.messages ?? []).filter((m) => m.role === 'tool');
      for (const m of results.slice(model.toolResults.length)) model.toolResults.push(String(m.content));
      const callTool = !asked && results.length === 0;
      if (callTool) asked = true;
      const call = {
        index: 0,
        id: 'call_hookgate_1',
        type: 'function',
        function: { name: spec.name, arguments: JSON.stringify(spec.arguments) },
      };
      const delta = callTool
        ? { role: 'assistant', tool_calls: [call] }
        : { role: 'assistant', content: 'done' };
      const finish = callTool ? 'tool_calls' : 'stop';
      const chunk = (choice: Record<string, unknown>) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model, choices: [choice], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\n`;
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(chunk({ index: 0, delta, finish_reason: null }));
        res.write(chunk({ index: 0, delta: {}, finish_reason: finish }));
        res.end('data: [DONE]\n\n');
        return;
      }
      const message = callTool
        ? { role: 'assistant', content: null, tool_calls: [{ ...call, index: undefined }] }
        : { role: 'assistant', content: 'done' };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, message, finish_reason: finish }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  model.close = () => new Promise((r) => server.close(() => r()));
  return model;
}
