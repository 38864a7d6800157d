import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, type ExpectStatic, expect as globalExpect, it } from 'vitest';
import { type GatewayReply, type GatewayRequest, TestGateway } from './helpers/gateway.js';
import { eventually, TOKEN as LONG_TOKEN, TestHost } from './helpers/host.js';

/**
 * Every PicoClaw transcript, replayed through the real bridge: the test host writes the transcript's
 * host->hook lines (hello first, then every call and notification at once, so several calls are in
 * flight with notifications between them), the gateway answers each call with the transcript's
 * hook->host lines, and the bridge's stdout must be what PicoClaw expects from the hook.
 */

const DIR = fileURLToPath(new URL('../fixtures/picoclaw/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

interface Line {
  dir: string;
  msg?: Record<string, any>;
}

function load(file: string): Line[] {
  return readFileSync(DIR + file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);
}

/** The hook->host lines that follow host->hook line `i`, up to the next host->hook line. */
function repliesAfter(lines: Line[], i: number): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  for (let j = i + 1; j < lines.length && lines[j].dir !== 'host->hook'; j++) {
    if (lines[j].dir === 'hook->host' && lines[j].msg) out.push(lines[j].msg!);
  }
  return out;
}

/** Answers a forwarded call from the transcript, renumbering the matching reply to the upstream id. */
function replayHandler(lines: Line[]) {
  return (req: GatewayRequest): GatewayReply => {
    const i = lines.findIndex(
      (l) =>
        l.dir === 'host->hook' &&
        l.msg?.method === req.method &&
        JSON.stringify(l.msg.params) === JSON.stringify(req.params),
    );
    if (i === -1) throw new Error(`no transcript line for ${req.method}`);
    const hostId = lines[i].msg!.id;
    const frames = repliesAfter(lines, i)
      .filter((m) => m.id !== undefined)
      .map((m) => (m.id === hostId ? { ...m, id: req.id } : m));
    return { frames };
  };
}

const DENIED = { approved: false, reason: globalExpect.stringMatching(/^hookgate: /) };

/**
 * What PicoClaw must read for a call, given what the hook said in the transcript. Where the hook's
 * line is not usable as is, the bridge answers with what PicoClaw would have done with it: an error
 * reply or a dropped line (string/unknown id) fails open, an approval without `approved` denies.
 */
function expected(method: string, hostId: number, replies: Record<string, any>[]): unknown {
  const reply = replies.find((m) => m.id === hostId);
  const approve = method === 'hook.approve_tool';
  if (!reply || reply.error) return approve ? DENIED : { action: 'continue' };
  if (approve) {
    const r = reply.result ?? {};
    if (typeof r.approved !== 'boolean') return DENIED;
    return r.reason === undefined ? { approved: r.approved } : { approved: r.approved, reason: r.reason };
  }
  return reply.result;
}

/** `expect` comes from the test's context: concurrent tests must not share the global one. */
async function replay(file: string, transport: 'ws' | 'http', expect: ExpectStatic): Promise<void> {
  const lines = load(file);
  const gateway = await TestGateway.start({ token: LONG_TOKEN, handler: replayHandler(lines) });
  // Fixture 20's call is never answered and waits out this deadline; the others are answered in ms.
  const host = new TestHost(['--url', gateway.wsUrl, '--transport', transport, '--timeout-ms', '10000'], {
    HOOKGATE_TOKEN: LONG_TOKEN,
  });
  try {
    await drive({ file, lines, gateway, host, transport }, expect);
  } finally {
    host.kill();
    await gateway.kill();
  }
}

interface Run {
  file: string;
  lines: Line[];
  gateway: TestGateway;
  host: TestHost;
  transport: string;
}

async function drive({ file, lines, gateway, host, transport }: Run, expect: ExpectStatic): Promise<void> {
  const sent = lines.filter((l) => l.dir === 'host->hook').map((l) => l.msg!);
  const [hello, ...rest] = sent;
  expect(hello.method).toBe('hook.hello');
  host.send(hello);
  expect((await host.answer(1)).result).toEqual({ ok: true, name: hello.params.name });

  for (const msg of rest) host.send(msg);
  const requests = rest.filter((m) => m.id !== undefined);
  for (const req of requests) {
    const i = lines.findIndex((l) => l.msg === req);
    const answer = await host.answer(req.id);
    expect(answer, `${file} id ${req.id} over ${transport}`).toEqual({
      jsonrpc: '2.0',
      id: req.id,
      result: expected(req.method, req.id, repliesAfter(lines, i)),
    });
  }
  // Ids go back as the host's integers, one line per request and none for notifications.
  for (const line of host.lines) expect(line).toMatch(/^\{"jsonrpc":"2\.0","id":\d+,"result":/);
  expect(host.lines).toHaveLength(requests.length + 1);

  const events = rest.filter((m) => m.id === undefined);
  if (events.length > 0) {
    await eventually(() => gateway.events.length >= events.length, 30_000, 'the events at the gateway');
    expect(gateway.events.map((e) => e.params)).toEqual(events.map((e) => e.params));
  }
  expect(gateway.calls.map((c) => c.method)).toEqual(requests.map((r) => r.method));
  expect(gateway.authHeaders.every((h) => h === `Bearer ${LONG_TOKEN}`)).toBe(true);

  host.closeStdin();
  expect((await host.exited).code).toBe(0);
  expect(host.lines).toHaveLength(requests.length + 1);
}

describe('fixture replay through the bridge', () => {
  it('has all twenty transcripts', () => {
    globalExpect(FILES).toHaveLength(20);
  });

  describe.concurrent('over WebSocket', () => {
    it.for(FILES)('%s', { timeout: 90_000 }, (file, { expect }) => replay(file, 'ws', expect));
  });

  describe.concurrent('over HTTP POST', () => {
    it.for(FILES)('%s', { timeout: 90_000 }, (file, { expect }) => replay(file, 'http', expect));
  });
});
