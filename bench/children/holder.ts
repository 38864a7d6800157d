/**
 * Holds N idle WebSocket connections to a URL, in its own process, so the server's RSS growth per
 * connection is measured without the clients' memory in the same process.
 *
 * IPC ops: open { url, token?, count, concurrency } → opened count; close → closes all.
 */
import WebSocket from 'ws';
import { announceReady, commonHandlers, serveIpc } from '../lib/ipc.js';

const sockets: WebSocket[] = [];

function openOne(url: string, token: string | undefined): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['hookgate.v1'], {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      perMessageDeflate: false,
      handshakeTimeout: 10_000,
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
}

serveIpc({
  ...commonHandlers(),
  open: async (args: {
    url: string;
    token?: string;
    count: number;
    concurrency: number;
    deadlineMs: number;
  }) => {
    const deadline = Date.now() + args.deadlineMs;
    let next = 0;
    let failures = 0;
    const worker = async () => {
      while (next < args.count && Date.now() < deadline) {
        next++;
        try {
          const ws = await openOne(args.url, args.token);
          ws.on('error', () => {});
          sockets.push(ws);
        } catch {
          failures++;
          if (failures > 20) return;
        }
      }
    };
    await Promise.all(Array.from({ length: args.concurrency }, worker));
    return { opened: sockets.length, failures };
  },
  close: async () => {
    await Promise.all(
      sockets.splice(0).map(
        (ws) =>
          new Promise<void>((resolve) => {
            ws.once('close', () => resolve());
            ws.close();
            setTimeout(() => {
              ws.terminate();
              resolve();
            }, 2000).unref();
          }),
      ),
    );
    return true;
  },
  stop: () => {
    for (const ws of sockets) ws.terminate();
    setImmediate(() => process.exit(0));
    return true;
  },
});
announceReady({ pid: process.pid });
