import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake OpenAI Responses API on 127.0.0.1 for Codex (`model_providers.<id>.base_url`, `wire_api =
 * "responses"`; Codex ignores OPENAI_BASE_URL): `POST /v1/responses`, streamed as server-sent
 * events. A request carrying no tool output gets one `exec_command` call with `cmd`; the next gets
 * a short text. It records the `function_call_output` texts Codex sent back.
 */
export interface FakeResponses {
  url: string;
  toolResults: string[];
  close(): Promise<void>;
}

export async function startFakeResponses(
  cmd: string,
  /** More arguments of the call, e.g. `sandbox_permissions: "require_escalated"` and a justification. */
  extra: Record<string, unknown> = {},
): Promise<FakeResponses> {
  const model: FakeResponses = { url: '', toolResults: [], close: async () => {} };
  let asked = false;
  let n = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/responses')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found"}}');
        return;
      }
      let body: { input?: { type?: string; output?: unknown }[] } = {};
      try {
        body = JSON.parse(raw);
      } catch {
        // answered with text below
      }
      const outputs = (body.input ?? []).filter((i) => i?.type === 'function_call_output');
      for (const o of outputs.slice(model.toolResults.length))
        model.toolResults.push(typeof o.output === 'string' ? o.output : JSON.stringify(o.output));
      const callTool = !asked && outputs.length === 0;
      if (callTool) asked = true;
      const id = `resp_hookgate_${++n}`;
      const item = callTool
        ? {
            type: 'function_call',
            id: `fc_hookgate_${n}`,
            call_id: `call_hookgate_${n}`,
            name: 'exec_command',
            arguments: JSON.stringify({ cmd, ...extra }),
            status: 'completed',
          }
        : {
            type: 'message',
            id: `msg_hookgate_${n}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'done', annotations: [] }],
          };
      const event = (type: string, data: Record<string, unknown>) =>
        `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
      const response = { id, object: 'response', status: 'in_progress', model: 'hookgate-fake', output: [] };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event('response.created', { response }));
      res.write(event('response.output_item.added', { output_index: 0, item }));
      res.write(event('response.output_item.done', { output_index: 0, item }));
      res.end(
        event('response.completed', {
          response: {
            ...response,
            status: 'completed',
            output: [item],
            usage: {
              input_tokens: 1,
              output_tokens: 1,
              total_tokens: 2,
              input_tokens_details: { cached_tokens: 0 },
              output_tokens_details: { reasoning_tokens: 0 },
            },
          },
        }),
      );
    });
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
