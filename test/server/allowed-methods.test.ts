import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, tenantDoc } from '../helpers/gateway.js';

/**
 * A method a documented route does not take gets 405 with Allow naming the ones it does (what the
 * OpenAPI document lists), not the 404 of a route that does not exist. Over a real socket with
 * node:http, since fetch refuses to send TRACE.
 */

const rec = { backend: { type: 'module', module: 'test/helpers/recording-hook.ts' }, modes: ['tool'] };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ tenants: { acme: tenantDoc({ tools: rec }) } });
});
afterAll(() => gw?.close());

function send(method: string, path: string): Promise<{ status: number; allow?: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${gw.url}${path}`, { method }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          allow: res.headers.allow,
          body: text ? JSON.parse(text) : undefined,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a method a documented route does not take', () => {
  it.each([
    ['TRACE', '/healthz', 'GET, HEAD'],
    ['POST', '/readyz', 'GET, HEAD'],
    ['DELETE', '/metrics', 'GET, HEAD'],
    ['OPTIONS', '/admin/reload', 'POST'],
    ['GET', '/admin/reload', 'POST'],
    ['PUT', '/openapi.json', 'GET, HEAD'],
    ['PUT', '/v1/tenants/acme/hooks/tools', 'POST, GET, HEAD'],
    ['PATCH', '/v1/tenants/nobody/hooks/nothing/claude-code', 'POST'],
    ['TRACE', '/v1/tenants/acme/hooks/tools/mcp', 'POST'],
    ['POST', '/v1/tenants/acme/hooks/tools/ws', 'GET, HEAD'],
  ])('%s %s: 405, Allow: %s, and a JSON error', async (method, path, allow) => {
    const res = await send(method, path);
    expect(res.status).toBe(405);
    expect(res.allow).toBe(allow);
    expect(res.body.error.code).toBe('method_not_allowed');
  });

  it('leaves a path no route has a 404', async () => {
    for (const [method, path] of [
      ['GET', '/nothing'],
      ['TRACE', '/healthz/extra'],
      ['GET', '/v1/tenants/acme/hooks/tools/other'],
    ]) {
      const res = await send(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});
