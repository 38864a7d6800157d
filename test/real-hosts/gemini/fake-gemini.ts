import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Gemini API on 127.0.0.1 (`GOOGLE_GEMINI_BASE_URL`): `models/*:streamGenerateContent`
 * (SSE) and `:generateContent`. The first request offering `run_shell_command` that carries no
 * function response gets one call of it with `args`; every other request gets a short text. It
 * records the function responses Gemini sent back (what the model read as the tool's result).
 */
export interface FakeGemini {
  url: string;
  /** The `functionResponse.response` objects Gemini sent back, in order. */
  toolResults: Record<string, unknown>[];
  close(): Promise<void>;
}

interface Part {
  text?: string;
  functionCall?: unknown;
  functionResponse?: { name?: string; response?: Record<string, unknown> };
}

export async function startFakeGemini(args: Record<string, unknown>): Promise<FakeGemini> {
  const model: FakeGemini = { url: '', toolResults: [], close: async () => {} };
  let asked = false;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method !== 'POST' || !/:(stream)?[gG]enerateContent/.test(path)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}');
        return;
      }
      let body: {
        contents?: { parts?: Part[] }[];
        tools?: { functionDeclarations?: { name?: string }[] }[];
        generationConfig?: { responseMimeType?: string };
      } = {};
      try {
        body = JSON.parse(raw);
      } catch {
        // answered with text below
      }
      const parts = (body.contents ?? []).flatMap((c) => c.parts ?? []);
      const responses = parts
        .filter((p) => p.functionResponse)
        .map((p) => p.functionResponse?.response ?? {});
      for (const r of responses.slice(model.toolResults.length)) model.toolResults.push(r);
      const offered = (body.tools ?? []).some((t) =>
        (t.functionDeclarations ?? []).some((f) => f.name === 'run_shell_command'),
      );
      const callTool = !asked && offered && responses.length === 0;
      if (callTool) asked = true;
      // Gemini's own JSON side requests (routing, next-speaker checks) get a JSON text they accept.
      const json = body.generationConfig?.responseMimeType === 'application/json';
      const text = json
        ? JSON.stringify({
            complexity_reasoning: 'simple',
            complexity_score: 1,
            next_speaker: 'user',
            reasoning: 'done',
          })
        : 'done';
      const part = callTool ? { functionCall: { name: 'run_shell_command', args } } : { text };
      const answer = {
        candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
        modelVersion: 'hookgate-fake',
      };
      if (path.includes(':streamGenerateContent')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${JSON.stringify(answer)}\n\n`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  model.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return model;
}
