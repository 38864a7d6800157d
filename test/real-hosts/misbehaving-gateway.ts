import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A server where the gateway should be, answering every call one wrong way: `silent` never answers,
 * `garbage` answers 200 with text that is no JSON, `redirect` answers 302 to `/allow` (which answers
 * `200 {}`, no objection, to anyone: a shim that follows it reads an approval nobody gave), `error`
 * answers 500. For the real-host suites' fail-closed cases.
 */
export type Misbehaviour = 'silent' | 'garbage' | 'redirect' | 'error';

export interface MisbehavingGateway {
  url: string;
  /** Requests that reached `/allow`. */
  allowed: number;
  close(): Promise<void>;
}

export async function startMisbehavingGateway(how: Misbehaviour): Promise<MisbehavingGateway> {
  const state = { allowed: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    if (how === 'silent') return;
    if (req.url === '/allow') {
      state.allowed++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    } else if (how === 'garbage') res.writeHead(200, { 'content-type': 'text/plain' }).end('allow');
    else if (how === 'redirect') res.writeHead(302, { location: '/allow' }).end();
    else res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get allowed() {
      return state.allowed;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Each misbehaviour with what the shim's reason says about it. */
export const MISBEHAVIOURS: [Misbehaviour, RegExp][] = [
  ['silent', /no answer within \d+ ms/],
  ['garbage', /not JSON/],
  ['redirect', /302: a redirect, not followed/],
  ['error', /HTTP 500: boom/],
];
