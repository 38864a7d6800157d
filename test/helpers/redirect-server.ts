import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A server in front of a decision: every path answers `302` to `/allow` on the same server, and
 * `/allow` answers `200 {}` (the no-objection answer of every dialect) to anyone, token or not. A
 * client that follows the redirect reads an approval nobody gave.
 */
export interface RedirectServer {
  /** The server's origin, `http://127.0.0.1:<port>`. */
  url: string;
  /** Requests that reached `/allow`. */
  allowed: number;
  close(): Promise<void>;
}

export async function startRedirectServer(): Promise<RedirectServer> {
  const state = { allowed: 0 };
  const server: Server = createServer((req, res) => {
    req.resume();
    if (req.url === '/allow') {
      state.allowed++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    res.writeHead(302, { location: '/allow' }).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
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
