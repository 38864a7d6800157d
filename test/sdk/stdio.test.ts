import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { defineHook } from '../../src/sdk/index.js';
import { MAX_REPLY_LINE_BYTES, serveStdio } from '../../src/sdk/stdio.js';
import { unreadSocket } from '../helpers/unread-socket.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/weather-sdk.ts', import.meta.url));

const hello = {
  jsonrpc: '2.0',
  id: 1,
  method: 'hook.hello',
  params: { name: 'weather_plugin', version: 1, modes: ['observe', 'llm', 'tool'] },
};
const beforeTool = (id: number, city: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'hook.before_tool',
  params: { meta: { TurnID: 'main-turn-1' }, tool: 'get_weather', arguments: { city } },
});
const event = (n: number) => ({
  jsonrpc: '2.0',
  method: 'hook.runtime_event',
  params: { id: `evt-${n}`, kind: 'agent.tool.exec_start', payload: { Tool: 'exec' } },
});

/** Drives a hook the way PicoClaw's ProcessHook does: NDJSON on stdin, replies read line by line. */
class Host {
  readonly lines: string[] = [];
  stderr = '';
  private buffer = '';
  private waiters: (() => void)[] = [];

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl = this.buffer.indexOf('\n');
      while (nl !== -1) {
        this.lines.push(this.buffer.slice(0, nl + 1));
        this.buffer = this.buffer.slice(nl + 1);
        nl = this.buffer.indexOf('\n');
      }
      for (const w of this.waiters.splice(0)) w();
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
  }

  send(...messages: object[]): void {
    this.child.stdin.write(messages.map((m) => JSON.stringify(m) + '\n').join(''));
  }

  async waitForLines(n: number, ms = 15_000): Promise<any[]> {
    const deadline = Date.now() + ms;
    while (this.lines.length < n) {
      if (Date.now() > deadline)
        throw new Error(`got ${this.lines.length} lines, wanted ${n}; stderr: ${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.lines.map((l) => JSON.parse(l));
  }
}

const children: ChildProcessWithoutNullStreams[] = [];
function start(): Host {
  const child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], { stdio: 'pipe' });
  children.push(child);
  return new Host(child);
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('examples/weather-sdk.ts as a PicoClaw stdio hook', () => {
  it('answers hello, several calls in flight by integer id, and never a notification', async () => {
    const host = start();
    host.send(hello);
    const [helloReply] = await host.waitForLines(1);
    expect(helloReply).toEqual({ jsonrpc: '2.0', id: 1, result: { ok: true, name: 'weather' } });

    // Three calls and notifications interleaved, in one write, as a busy host would.
    host.send(
      event(1),
      beforeTool(2, 'Berlin'),
      event(2),
      beforeTool(3, 'Atlantis'),
      beforeTool(4, 'Paris'),
      event(3),
    );
    host.send({
      jsonrpc: '2.0',
      id: 5,
      method: 'hook.after_tool',
      params: { tool: 'exec', result: { for_llm: 'ok' } },
    });
    const replies = await host.waitForLines(5);
    await new Promise((r) => setTimeout(r, 300)); // give a stray notification answer time to show up
    expect(host.lines).toHaveLength(5);
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect([...byId.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
    for (const line of host.lines) expect(line).toMatch(/"id":\d+,/); // ids are JSON numbers
    expect(byId.get(2).result).toStrictEqual({
      action: 'respond',
      result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
    });
    expect(byId.get(3).result.result).toMatchObject({ is_error: true });
    expect(byId.get(4).result.result.for_llm).toBe('Paris: 21 C, clear');
    expect(byId.get(5).result).toEqual({ action: 'continue' });
  });

  it('injects its tool in before_llm, and falls back to continue when the echo would pass 1 MiB', async () => {
    const host = start();
    host.send(hello);
    const params = (content: string) => ({
      meta: {},
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content }],
      tools: [],
      options: { max_tokens: 8192 },
    });
    host.send({ jsonrpc: '2.0', id: 2, method: 'hook.before_llm', params: params('hi') });
    // The host accepts long lines in, but this echo would not fit in one 1 MiB reply line.
    host.send({
      jsonrpc: '2.0',
      id: 3,
      method: 'hook.before_llm',
      params: params('x'.repeat(MAX_REPLY_LINE_BYTES)),
    });
    host.send(beforeTool(4, 'Berlin')); // still alive and reading afterwards
    const replies = await host.waitForLines(4);
    const byId = new Map(replies.map((r) => [r.id, r]));
    expect(byId.get(2).result.action).toBe('modify');
    expect(byId.get(2).result.request.options).toEqual({ max_tokens: 8192 });
    expect(byId.get(2).result.request.tools.map((t: any) => t.function.name)).toEqual(['get_weather']);
    expect(byId.get(3).result).toEqual({ action: 'continue' });
    expect(byId.get(4).result.action).toBe('respond');
    for (const line of host.lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_REPLY_LINE_BYTES);
    expect(host.stderr).toMatch(/exceeds 1048576 bytes/);
  });

  it('ignores garbage lines, logs to stderr only, denies approvals it does not implement, exits on EOF', async () => {
    const host = start();
    host.send(hello);
    host.child.stdin.write('this is not json\n{"jsonrpc":"2.0","id":99,"result":{}}\n');
    host.send({ jsonrpc: '2.0', id: 2, method: 'hook.approve_tool', params: { tool: 'exec' } });
    const replies = await host.waitForLines(2);
    expect(replies[1]).toMatchObject({ id: 2, error: { code: -32601 } });
    expect(host.stderr).toMatch(/\[weather\] ignoring an input line/);
    host.child.stdin.end();
    const [code] = await once(host.child, 'exit');
    expect(code).toBe(0);
    expect(host.lines).toHaveLength(2);
  });
});

describe('serveStdio in process', () => {
  function harness(hook: Parameters<typeof serveStdio>[0]) {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out: string[] = [];
    let err = '';
    stdout.setEncoding('utf8').on('data', (c: string) => out.push(...c.split('\n').filter(Boolean)));
    stderr.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    const server = serveStdio(hook, { stdin, stdout, stderr });
    const send = (m: object) => stdin.write(JSON.stringify(m) + '\n');
    return { stdin, out, stderr: () => err, server, send };
  }

  it('answers calls as they finish, not in arrival order', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const h = harness({
      name: 'slow',
      beforeTool: async (p) => {
        if (p.tool === 'slow') await gate;
        return { action: 'continue', reason: p.tool };
      },
    });
    h.send({ jsonrpc: '2.0', id: 2, method: 'hook.before_tool', params: { tool: 'slow' } });
    h.send({ jsonrpc: '2.0', id: 3, method: 'hook.before_tool', params: { tool: 'fast' } });
    await expect.poll(() => h.out.length).toBe(1);
    expect(JSON.parse(h.out[0]).id).toBe(3);
    expect(h.server.inFlight).toBe(1);
    release();
    await expect.poll(() => h.out.length).toBe(2);
    expect(JSON.parse(h.out[1]).id).toBe(2);
    h.stdin.end();
    await h.server.done;
  });

  it('turns an approval over 1 MiB into an explicit denial', async () => {
    const hook = defineHook({
      name: 'big',
      approveTool: () => ({ approved: true, reason: 'y'.repeat(2_000_000) }),
    });
    const h = harness(hook);
    h.send({ jsonrpc: '2.0', id: 7, method: 'hook.approve_tool', params: { tool: 'exec' } });
    await expect.poll(() => h.out.length).toBe(1);
    expect(JSON.parse(h.out[0])).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { approved: false, reason: 'hook reply exceeded 1 MiB' },
    });
    expect(h.stderr()).toMatch(/\[big\] reply to hook.approve_tool \(id 7\) exceeds/);
  });

  it('answers an exactly-1 MiB line but not one byte more', async () => {
    // {"jsonrpc":"2.0","id":2,"result":{"action":"continue","reason":"<pad>"}} + "\n"
    const overhead =
      JSON.stringify({ jsonrpc: '2.0', id: 2, result: { action: 'continue', reason: '' } }).length + 1;
    const pad = (n: number) => 'r'.repeat(MAX_REPLY_LINE_BYTES - overhead + n);
    const h = harness({ afterTool: (p) => ({ action: 'continue', reason: pad(p.extra) }) });
    h.send({ jsonrpc: '2.0', id: 2, method: 'hook.after_tool', params: { extra: 0 } });
    await expect.poll(() => h.out.length).toBe(1);
    expect(Buffer.byteLength(h.out[0]) + 1).toBe(MAX_REPLY_LINE_BYTES);
    h.send({ jsonrpc: '2.0', id: 2, method: 'hook.after_tool', params: { extra: 1 } });
    await expect.poll(() => h.out.length).toBe(2);
    expect(JSON.parse(h.out[1]).result).toEqual({ action: 'continue' });
  });

  it('logs a failing notification handler and never answers it', async () => {
    const h = harness({
      name: 'obs',
      onEvent: () => {
        throw new Error('observer broke');
      },
    });
    h.send(event(1));
    h.send({ jsonrpc: '2.0', id: 2, method: 'hook.after_llm', params: {} });
    await expect.poll(() => h.out.length).toBe(1);
    expect(JSON.parse(h.out[0])).toEqual({ jsonrpc: '2.0', id: 2, result: { action: 'continue' } });
    await expect.poll(() => h.stderr()).toMatch(/observer broke/);
  });
});

describe('serveStdio backpressure', () => {
  it('stops reading requests while the host is not reading answers, and loses or reorders none', async () => {
    const pipe = await unreadSocket();
    const stdin = new PassThrough();
    const answer = 'r'.repeat(256 * 1024);
    const server = serveStdio(
      { name: 'big', afterTool: () => ({ action: 'continue', reason: answer }) },
      { stdin, stdout: pipe.writer, stderr: new PassThrough() },
    );
    const N = 200; // 50 MiB of answers, asked for one after another as a running host would
    for (let id = 1; id <= N; id++) {
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'hook.after_tool', params: {} })}\n`);
      await new Promise((r) => setImmediate(r));
    }
    // The server stops reading once its answers back up (however long a loaded machine takes to
    // get there), and what it buffered stays bounded.
    await expect.poll(() => stdin.isPaused()).toBe(true);
    expect(pipe.writer.writableLength).toBeLessThan(4 * 1024 * 1024);

    // The host reads again: every answer arrives, in the order the calls were made.
    const ids: number[] = [];
    let buffer = '';
    pipe.reader.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let nl = buffer.indexOf('\n');
      while (nl !== -1) {
        ids.push(JSON.parse(buffer.slice(0, nl)).id);
        buffer = buffer.slice(nl + 1);
        nl = buffer.indexOf('\n');
      }
    });
    pipe.reader.resume();
    await expect.poll(() => ids.length, { timeout: 15_000 }).toBe(N);
    expect(ids).toEqual(Array.from({ length: N }, (_, i) => i + 1));
    stdin.end();
    await server.done;
    pipe.close();
  }, 30_000);
});
