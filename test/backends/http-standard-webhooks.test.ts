import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpBackend } from '../../src/backends/http.js';
import type { BackendContext } from '../../src/backends/types.js';
import { createSigner, createVerifier } from '../../src/core/webhook-signature.js';

/**
 * The http backend's requests checked by the reference implementation of Standard Webhooks (the
 * `standardwebhooks` npm package), as a receiver using it would: every call and event it sends
 * verifies under each configured secret (rotation), and hookgate's verifier and the reference
 * agree on each other's signatures.
 */
const OLD = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const NEW = `whsec_${Buffer.alloc(24, 2).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** The three Standard Webhooks headers as the reference's verify() takes them. */
function webhookHeaders(h: IncomingHttpHeaders): Record<string, string> {
  return {
    'webhook-id': String(h['webhook-id']),
    'webhook-timestamp': String(h['webhook-timestamp']),
    'webhook-signature': String(h['webhook-signature']),
  };
}

describe('http backend signing, checked by the standardwebhooks reference library', () => {
  let server: Server;
  let url: string;
  const deliveries: Delivery[] = [];
  let backend: HttpBackend;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      deliveries.push({ headers: req.headers, body });
      const id = (JSON.parse(body) as { id?: number }).id;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { action: 'continue' } }));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const log = { debug() {}, info() {}, warn() {}, error() {} };
    const context: BackendContext = { tenant: 'acme', hook: 'weather', modes: ['tool', 'observe'], log };
    backend = new HttpBackend({ url, secrets: [OLD, NEW], timeoutMs: 5000 }, context);
  });
  afterAll(async () => {
    await backend?.close();
    await new Promise((r) => server?.close(r));
  });

  it('signs every call and event so that the reference verifies it under each secret', async () => {
    const params = { tool: 'get_weather', arguments: { city: 'Zürich', note: 'ünïcödé ✓ "quoted"\n' } };
    await backend.call('hook.before_tool', params, 5000);
    backend.notify('hook.runtime_event', { kind: 'turn_start', text: '∑ emoji 🌦' });
    await expect.poll(() => deliveries.length).toBe(2);
    for (const d of deliveries) {
      for (const secret of [OLD, NEW]) {
        expect(new Webhook(secret).verify(d.body, webhookHeaders(d.headers))).toEqual(JSON.parse(d.body));
      }
      // A secret that was never configured does not verify: the check above is not vacuous.
      expect(() => new Webhook(OTHER).verify(d.body, webhookHeaders(d.headers))).toThrow(
        WebhookVerificationError,
      );
      // Nor does a body changed by one byte.
      expect(() => new Webhook(OLD).verify(`${d.body} `, webhookHeaders(d.headers))).toThrow(
        WebhookVerificationError,
      );
    }
  });

  it('produces the reference signature byte for byte, and verifies the reference signatures', async () => {
    const id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
    const seconds = 1_700_000_000;
    const body = '{"jsonrpc":"2.0","id":1,"method":"hook.before_tool","params":{"tool":"ünï"}}';
    const ours = await createSigner([OLD]).sign(id, seconds, body);
    expect(ours).toBe(new Webhook(OLD).sign(id, new Date(seconds * 1000), body));
    const theirs = [OLD, NEW].map((s) => new Webhook(s).sign(id, new Date(seconds * 1000), body)).join(' ');
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(seconds), 'webhook-signature': theirs };
    expect((await createVerifier([NEW]).verify(headers, body, seconds)).ok).toBe(true);
    expect((await createVerifier([OTHER]).verify(headers, body, seconds)).ok).toBe(false);
  });
});
