/**
 * The floor of PicoClaw's real shape (`bridge-stdio`): the same three processes and six wake-ups
 * per call as host → bridge → WebSocket → gateway → stdio hook, with nothing on the way but the
 * hops. Each relay forwards a line as a frame and a frame as a line, unparsed: no auth, no policy,
 * no ids of its own, one connection, one hook. The lines of one chunk leave in one frame write, as
 * the bridge's and the gateway's do with many calls in flight; each frame is one write to the hook.
 *
 *   argv[2] = server: a `ws` server that hosts the weather hook (`examples/weather-sdk.ts`) as its
 *     stdio child, each frame a line to the hook's stdin, each stdout line a frame back (the
 *     gateway's place). A forked child: reports its port and the hook's pid over IPC.
 *   argv[2] = client, argv[3] = ws URL: NDJSON on its own stdin/stdout, each line a frame to the
 *     server, each frame a line back (the bridge's place). Spawned as the bridge is.
 */
import { spawn } from 'node:child_process';
import type { AddressInfo, Socket } from 'node:net';
import type { Writable } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { weatherHookArgs } from '../lib/config.js';
import { announceReady, commonHandlers, serveIpc } from '../lib/ipc.js';
import { TextLines } from '../lib/text-lines.js';

const MAX_PAYLOAD = 64 * 1024 * 1024;
const mode = process.argv[2];

const socketOf = (ws: WebSocket) => (ws as unknown as { _socket: Socket })._socket;

/** Runs `fn` with `out` corked: what it writes leaves in one write when it returns. */
function together(out: Writable | undefined, fn: () => void): void {
  out?.cork();
  try {
    fn();
  } finally {
    out?.uncork();
  }
}

if (mode === 'server') {
  const hook = spawn(process.execPath, weatherHookArgs(), {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let current: WebSocket | undefined;
  hook.stdout.setEncoding('utf8');
  const fromHook = new TextLines((line) => current?.send(line));
  hook.stdout.on('data', (chunk: string) =>
    together(current && socketOf(current), () => fromHook.push(chunk)),
  );
  const wss = new WebSocketServer({
    host: '127.0.0.1',
    port: 0,
    perMessageDeflate: false,
    maxPayload: MAX_PAYLOAD,
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (ws) => {
    current = ws;
    ws.on('message', (data, isBinary) => {
      // One write per frame, as the gateway writes to a stdio hook.
      if (!isBinary) hook.stdin.write(`${data.toString()}\n`);
    });
  });
  const port = (wss.address() as AddressInfo).port;
  serveIpc({
    ...commonHandlers(),
    stop: () => {
      wss.close();
      hook.kill();
      setImmediate(() => process.exit(0));
      return true;
    },
  });
  announceReady({ url: `http://127.0.0.1:${port}`, port, pid: process.pid, hookPid: hook.pid });
} else if (mode === 'client') {
  const url = process.argv[3];
  if (!url) throw new Error('chain-floor client: a ws:// URL is required');
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: MAX_PAYLOAD });
  // Lines read before the socket opens (the host's hello) wait for it.
  const early: string[] = [];
  const toServer = new TextLines((line) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(line);
    else early.push(line);
  });
  ws.once('open', () => {
    for (const line of early.splice(0)) ws.send(line);
  });
  ws.on('message', (data, isBinary) => {
    if (!isBinary) process.stdout.write(`${data.toString()}\n`);
  });
  ws.once('close', () => process.exit(0));
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) =>
    together(ws.readyState === WebSocket.OPEN ? socketOf(ws) : undefined, () => toServer.push(chunk)),
  );
  process.stdin.once('end', () => ws.close());
} else {
  throw new Error(`chain-floor: unknown mode ${mode}`);
}
