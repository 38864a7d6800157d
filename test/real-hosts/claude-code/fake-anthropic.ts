import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Anthropic Messages API on 127.0.0.1: the first request that offers the tool (Bash, unless
 * another is named) gets one `tool_use` asking for it (Bash: to run `command`); a request carrying
 * a tool_result gets a short final text. Anything else (titles, summaries) gets a short text.
 * Answers in SSE when asked to stream. It records what the model would have seen: the tools it was
 * offered and the tool results it got back.
 */
export interface FakeModel {
  url: string;
  /** The tool_result blocks Claude Code sent back, in order. */
  toolResults: { content: string; isError: boolean }[];
  /** Every tool name offered in any request. */
  offered: Set<string>;
  requests: number;
  close(): Promise<void>;
}

type Block = Record<string, unknown>;

export async function startFakeModel(
  command: string,
  tool: { name: string; input: Record<string, unknown> } = {
    name: 'Bash',
    input: { command, description: 'print a test marker' },
  },
): Promise<FakeModel> {
  const model: FakeModel = {
    url: '',
    toolResults: [],
    offered: new Set(),
    requests: 0,
    close: async () => {},
  };
  let asked = false;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      if (req.url.startsWith('/v1/messages/count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"input_tokens":10}');
        return;
      }
      model.requests++;
      const body = JSON.parse(raw || '{}');
      const messages: { role: string; content: unknown }[] = body.messages ?? [];
      const results: Block[] = [];
      for (const m of messages) {
        if (m.role === 'user' && Array.isArray(m.content)) {
          for (const b of m.content as Block[]) if (b.type === 'tool_result') results.push(b);
        }
      }
      for (const t of (body.tools ?? []) as Block[])
        if (typeof t.name === 'string') model.offered.add(t.name);
      const offersTool = Array.isArray(body.tools) && body.tools.some((t: Block) => t.name === tool.name);
      let content: Block[];
      let stop = 'end_turn';
      if (results.length > 0) {
        model.toolResults = results.map((r) => ({
          content: textOf(r.content),
          isError: r.is_error === true,
        }));
        content = [{ type: 'text', text: 'hookgate-e2e: saw the tool result, done.' }];
      } else if (offersTool && !asked) {
        asked = true;
        stop = 'tool_use';
        content = [
          {
            type: 'tool_use',
            id: `toolu_${Date.now()}`,
            name: tool.name,
            input: tool.input,
          },
        ];
      } else {
        content = [{ type: 'text', text: 'ok' }];
      }
      answer(res, body, content, stop);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  model.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return model;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((c: Block) => (typeof c.text === 'string' ? c.text : '')).join('');
  return '';
}

function answer(res: import('node:http').ServerResponse, body: Block, content: Block[], stop: string): void {
  const id = `msg_${Date.now()}`;
  const model = typeof body.model === 'string' ? body.model : 'claude-fake';
  const usage = { input_tokens: 10, output_tokens: 5 };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: stop,
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  send('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: block.text },
      });
    } else {
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      send('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      });
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}
