import { once } from 'node:events';
import { createServer, type Socket, connect } from 'node:net';

/**
 * A real byte stream whose far end does not read until told to: `writer` fills the kernel buffers
 * and then its own, as a pipe to a host that stopped reading would. `reader` starts paused.
 */
export async function unreadSocket(): Promise<{ writer: Socket; reader: Socket; close(): void }> {
  const server = createServer({ pauseOnConnect: true });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const accepted = once(server, 'connection');
  const writer = connect(port, '127.0.0.1');
  await once(writer, 'connect');
  const [reader] = (await accepted) as [Socket];
  return {
    writer,
    reader,
    close() {
      writer.destroy();
      reader.destroy();
      server.close();
    },
  };
}
