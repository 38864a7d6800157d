import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { argsDigest } from '../../src/approvals/binding.js';
import type { ApprovalRequest } from '../../src/approvals/types.js';
import { sendApprovalWebhook } from '../../src/approvals/webhook.js';
import { approvalsSchema, compileApprovals } from '../../src/config/approvals.js';
import type { ConfigIssue } from '../../src/config/errors.js';
import { createVerifier } from '../../src/core/webhook-signature.js';
import type { Logger } from '../../src/server/logger.js';

const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP server: records what it gets; /redirect answers 302, /fail 500. */
let server: Server;
let base: string;
let received: Received[] = [];
const waiters: ((r: Received) => void)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body };
      received.push(r);
      for (const w of waiters.splice(0)) w(r);
      if (req.url === '/redirect') res.writeHead(302, { location: `${base}/elsewhere` }).end();
      else if (req.url === '/fail') res.writeHead(500).end('no');
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

function settings(doc: Record<string, unknown>) {
  const issues: ConfigIssue[] = [];
  const out = compileApprovals(approvalsSchema.parse(doc), 'tenants.acme.approvals', (ref) => ref, issues);
  expect(issues).toEqual([]);
  return out;
}

function recordingLog(): Logger & { lines: { level: string; obj: object; msg?: string }[] } {
  const lines: { level: string; obj: object; msg?: string }[] = [];
  const at =
    (level: string) =>
    (obj: object, msg?: string): void => {
      lines.push({ level, obj, msg });
    };
  const log = {
    lines,
    enabled: () => true,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => log,
  };
  return log;
}

async function request(): Promise<ApprovalRequest> {
  return {
    id: crypto.randomUUID(),
    binding: {
      tenant: 'acme',
      hook: 'guard',
      host: 'codex',
      tool: 'shell',
      argsDigest: await argsDigest({ command: 'make <deploy>' }),
      configRevision: 'rev-9',
      expiresAt: Date.now() + 60_000,
    },
    display: { args: { command: 'make <deploy>' }, reason: 'deploys need a person' },
    createdAt: Date.now(),
  };
}

describe('approval webhook', () => {
  it('POSTs the standard event, signed per Standard Webhooks, to a real server that verifies it', async () => {
    received = [];
    const req = await request();
    const s = settings({
      webhook: { url: `${base}/hook`, secret: SECRET },
      inbox_url: 'https://gw.example/approvals',
    });
    const log = recordingLog();
    await sendApprovalWebhook(s, req, { log });
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([]);
    expect(received).toHaveLength(1);
    const got = received[0];
    const verdict = await createVerifier([SECRET]).verify(got.headers, got.body);
    expect(verdict.ok).toBe(true);
    const forged = await createVerifier([SECRET]).verify(got.headers, got.body.replace('shell', 'shelL'));
    expect(forged.ok).toBe(false);
    expect(JSON.parse(got.body)).toEqual({
      type: 'approval.requested',
      timestamp: new Date(req.createdAt).toISOString(),
      data: {
        id: req.id,
        tenant: 'acme',
        hook: 'guard',
        host: 'codex',
        tool: 'shell',
        args_digest: req.binding.argsDigest,
        config_revision: 'rev-9',
        created_at: req.createdAt,
        expires_at: req.binding.expiresAt,
        reason: 'deploys need a person',
        args: { command: 'make <deploy>' },
        inbox_url: 'https://gw.example/approvals',
      },
    });
  });

  it('leaves the arguments out when the caller did not let them be shown', async () => {
    received = [];
    const req = await request();
    req.display = {};
    await sendApprovalWebhook(settings({ webhook: { url: `${base}/hook`, secret: SECRET } }), req);
    expect(JSON.parse(received[0].body).data).not.toHaveProperty('args');
  });

  it('sends a Slack-compatible message (text, escaped, with the inbox link) on format slack', async () => {
    received = [];
    const req = await request();
    const s = settings({
      webhook: { url: `${base}/slack`, format: 'slack' },
      inbox_url: 'https://gw.example/approvals',
    });
    await sendApprovalWebhook(s, req);
    const body = JSON.parse(received[0].body) as { text: string };
    expect(Object.keys(body)).toEqual(['text']);
    expect(body.text).toContain('`shell` from codex via hook guard');
    expect(body.text).toContain('make &lt;deploy&gt;');
    expect(body.text).toContain('<https://gw.example/approvals|Open the approval inbox>');
    expect(received[0].headers['webhook-signature']).toBeUndefined();
  });

  it('logs and does not throw on an error answer, a redirect, and an unreachable URL', async () => {
    received = [];
    const log = recordingLog();
    const req = await request();
    await sendApprovalWebhook(settings({ webhook: { url: `${base}/fail`, secret: SECRET } }), req, { log });
    await sendApprovalWebhook(settings({ webhook: { url: `${base}/redirect`, secret: SECRET } }), req, {
      log,
    });
    await sendApprovalWebhook(settings({ webhook: { url: 'http://127.0.0.1:1/x', secret: SECRET } }), req, {
      log,
    });
    // The redirect was not followed.
    expect(received.map((r) => r.path)).toEqual(['/fail', '/redirect']);
    const warned = log.lines.filter((l) => l.level === 'warn');
    expect(warned.map((l) => l.msg)).toEqual([
      'approval webhook answered with an error',
      'approval webhook failed',
      'approval webhook failed',
    ]);
    expect(JSON.stringify(log.lines)).not.toContain(base);
  });

  it('names each bad config path', () => {
    const issues: ConfigIssue[] = [];
    const resolve = (ref: string) => ref;
    compileApprovals(
      { webhook: { url: 'ftp://x', format: 'standard', timeout_ms: 1000 } },
      'tenants.acme.approvals',
      resolve,
      issues,
    );
    compileApprovals(
      { webhook: { url: 'https://x', secret: 'whsec_short', format: 'slack', timeout_ms: 1000 } },
      'tenants.b.approvals',
      resolve,
      issues,
    );
    expect(issues.map((i) => i.path)).toEqual([
      'tenants.acme.approvals.webhook.url',
      'tenants.acme.approvals.webhook.secret',
      'tenants.b.approvals.webhook.secret',
    ]);
  });
});
