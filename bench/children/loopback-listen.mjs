/**
 * Preloaded (`node --import`) into a server the bench runs but did not write (supergateway), which
 * listens on every interface and on a fixed port: its listening socket is bound to 127.0.0.1 instead,
 * and the port it got is sent to the orchestrator over the IPC channel as `{ ready: { port } }`, so
 * the bench can pass `--port 0` and nothing outside this machine can reach it.
 */
import net from 'node:net';

const listen = net.Server.prototype.listen;
let announced = false;

net.Server.prototype.listen = function (...args) {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, cb]): put the loopback host in, or over the one given.
    if (typeof args[1] === 'string') args[1] = '127.0.0.1';
    else args.splice(1, 0, '127.0.0.1');
  } else if (first && typeof first === 'object' && first.path === undefined) {
    args[0] = { ...first, host: '127.0.0.1' };
  }
  this.once('listening', () => {
    const address = this.address();
    if (announced || !address || typeof address !== 'object') return;
    announced = true;
    process.send?.({ ready: { port: address.port } });
  });
  return listen.apply(this, args);
};
