import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createSigner,
  createVerifier,
  newWebhookId,
  parseWebhookSecret,
  WebhookSecretError,
} from '../../src/core/webhook-signature.js';

// The published Standard Webhooks test vector (spec and every reference library's tests).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const secretA = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
const secretB = 'whsec_' + Buffer.alloc(32, 2).toString('base64');

function headers(id: string, timestamp: number, signature: string) {
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

afterEach(() => vi.restoreAllMocks());

describe('parseWebhookSecret', () => {
  it('decodes the base64 part after whsec_', () => {
    expect(Buffer.from(parseWebhookSecret(VECTOR.secret)).toString('base64')).toBe(
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    );
  });

  it.each([
    ['no prefix', 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', /must start with "whsec_"/],
    ['not base64', 'whsec_not base64!!', /not valid base64/],
    ['empty', 'whsec_', /not valid base64/],
    ['too short', 'whsec_' + Buffer.alloc(16).toString('base64'), /at least 24 bytes/],
  ])('refuses a secret with %s', (_name, secret, message) => {
    expect(() => parseWebhookSecret(secret)).toThrow(WebhookSecretError);
    expect(() => parseWebhookSecret(secret)).toThrow(message);
  });

  it('fails at construction, not at first use', () => {
    expect(() => createSigner([])).toThrow(/at least one/);
    expect(() => createSigner(['whsec_short'])).toThrow(WebhookSecretError);
    expect(() => createVerifier([secretA], { toleranceSeconds: 0 })).toThrow(RangeError);
  });
});

describe('createSigner', () => {
  it('reproduces the Standard Webhooks test vector', async () => {
    const signer = createSigner([VECTOR.secret]);
    expect(await signer.sign(VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(await signer.sign(VECTOR.id, VECTOR.timestamp, new TextEncoder().encode(VECTOR.body))).toBe(
      VECTOR.signature,
    );
  });

  it('matches an independent HMAC computed with node:crypto', async () => {
    const body = '{"jsonrpc":"2.0","id":7,"method":"hook.before_tool","params":{"tool":"ü"}}';
    const expected = createHmac('sha256', Buffer.alloc(32, 1))
      .update(`msg_1.1700000000.${body}`)
      .digest('base64');
    expect(await createSigner([secretA]).sign('msg_1', 1700000000, body)).toBe(`v1,${expected}`);
  });

  it('emits one v1 entry per secret while rotating', async () => {
    const both = await createSigner([secretA, secretB]).sign('msg_1', 1700000000, '{}');
    const a = await createSigner([secretA]).sign('msg_1', 1700000000, '{}');
    const b = await createSigner([secretB]).sign('msg_1', 1700000000, '{}');
    expect(both).toBe(`${a} ${b}`);
  });

  it('imports each key once, not per signature', async () => {
    const spy = vi.spyOn(crypto.subtle, 'importKey');
    const signer = createSigner([secretA, secretB]);
    for (let i = 0; i < 20; i++) await signer.sign(`msg_${i}`, 1700000000, '{}');
    expect(spy).toHaveBeenCalledTimes(2);
  });
});

describe('createVerifier', () => {
  const verifier = createVerifier([VECTOR.secret]);

  it('accepts the test vector at its own time', async () => {
    const result = await verifier.verify(
      headers(VECTOR.id, VECTOR.timestamp, VECTOR.signature),
      VECTOR.body,
      VECTOR.timestamp,
    );
    expect(result).toEqual({ ok: true, id: VECTOR.id, timestamp: VECTOR.timestamp });
  });

  it('accepts fetch Headers and a match anywhere in the list', async () => {
    const h = new Headers(headers(VECTOR.id, VECTOR.timestamp, `v2,abc v1,bm9wZQ== ${VECTOR.signature}`));
    expect((await verifier.verify(h, VECTOR.body, VECTOR.timestamp)).ok).toBe(true);
  });

  it('accepts any of several secrets (rotation on the receiving side)', async () => {
    const signature = await createSigner([secretB]).sign('msg_9', 1700000000, 'x');
    const v = createVerifier([secretA, secretB]);
    expect((await v.verify(headers('msg_9', 1700000000, signature), 'x', 1700000000)).ok).toBe(true);
    const onlyA = createVerifier([secretA]);
    expect(await onlyA.verify(headers('msg_9', 1700000000, signature), 'x', 1700000000)).toMatchObject({
      ok: false,
      code: 'SIGNATURE_INVALID',
    });
  });

  it.each([
    ['a changed body', { body: '{"test": 2432232315}' }],
    ['a changed id', { id: 'msg_other' }],
    ['a wrong signature', { signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OA=' }],
    ['a v2-only signature', { signature: VECTOR.signature.replace('v1,', 'v2,') }],
    ['a garbage signature', { signature: 'v1,%%%' }],
  ])('refuses %s as SIGNATURE_INVALID', async (_name, change: Partial<typeof VECTOR>) => {
    const v = { ...VECTOR, ...change };
    const result = await verifier.verify(headers(v.id, v.timestamp, v.signature), v.body, VECTOR.timestamp);
    expect(result).toMatchObject({ ok: false, code: 'SIGNATURE_INVALID' });
  });

  it('refuses missing headers as SIGNATURE_MISSING', async () => {
    for (const drop of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const h: Record<string, string> = headers(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
      delete h[drop];
      expect(await verifier.verify(h, VECTOR.body, VECTOR.timestamp)).toMatchObject({
        ok: false,
        code: 'SIGNATURE_MISSING',
      });
    }
  });

  it('checks the timestamp both ways with a 5 minute default tolerance', async () => {
    const h = headers(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
    expect((await verifier.verify(h, VECTOR.body, VECTOR.timestamp + 300)).ok).toBe(true);
    expect((await verifier.verify(h, VECTOR.body, VECTOR.timestamp - 300)).ok).toBe(true);
    expect(await verifier.verify(h, VECTOR.body, VECTOR.timestamp + 301)).toMatchObject({
      code: 'TIMESTAMP_STALE',
    });
    expect(await verifier.verify(h, VECTOR.body, VECTOR.timestamp - 301)).toMatchObject({
      code: 'TIMESTAMP_STALE',
    });
    // with the real clock, a 2021 timestamp is long stale
    expect(await verifier.verify(h, VECTOR.body)).toMatchObject({ code: 'TIMESTAMP_STALE' });
  });

  it('honours a custom tolerance and refuses a malformed timestamp', async () => {
    const strict = createVerifier([VECTOR.secret], { toleranceSeconds: 10 });
    const h = headers(VECTOR.id, VECTOR.timestamp, VECTOR.signature);
    expect(await strict.verify(h, VECTOR.body, VECTOR.timestamp + 11)).toMatchObject({
      code: 'TIMESTAMP_STALE',
    });
    const bad = { ...h, 'webhook-timestamp': '1614265330.5' };
    expect(await verifier.verify(bad, VECTOR.body, VECTOR.timestamp)).toMatchObject({
      code: 'TIMESTAMP_INVALID',
    });
  });

  it('round-trips with its own signer on the real clock', async () => {
    const now = Math.floor(Date.now() / 1000);
    const id = newWebhookId();
    expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    const signature = await createSigner([secretA]).sign(id, now, 'body');
    expect((await createVerifier([secretA]).verify(headers(id, now, signature), 'body')).ok).toBe(true);
  });
});
