import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A full collection on demand, so that what the heap still holds can be compared (a string cannot
// be watched with a WeakRef).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The JS heap in use after two full collections. */
export function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}
