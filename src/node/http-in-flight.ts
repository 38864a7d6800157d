import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Counts the HTTP requests a server is answering, so that shutdown can let them finish (and say
 * how many it waited for, and how many it had to cut) before it closes the connections.
 */
export interface HttpInFlight {
  readonly count: number;
  /** Resolves when none is left, or after `timeoutMs` (the timer never keeps the process alive). */
  idle(timeoutMs: number): Promise<void>;
}

export function trackHttpInFlight(server: Server): HttpInFlight {
  let count = 0;
  let waiters: Array<() => void> = [];
  // One listener for every response: a closure and a once-wrapper made per request cost more
  // than the count they keep. 'close' comes once per response: after it is sent, or when its
  // connection is cut.
  const closed = () => {
    count--;
    if (count === 0) for (const w of waiters.splice(0)) w();
  };
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    count++;
    res.on('close', closed);
  });
  return {
    get count() {
      return count;
    },
    idle(timeoutMs) {
      if (count === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== done);
          resolve();
        }, timeoutMs);
        timer.unref();
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        waiters.push(done);
      });
    },
  };
}
