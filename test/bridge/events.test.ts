import { describe, expect, it } from 'vitest';
import { EventForwarder } from '../../src/bridge/events.js';
import { createLogger } from '../../src/bridge/log.js';

function sink() {
  const lines: string[] = [];
  return { lines, write: (s: string) => lines.push(s) };
}

describe('EventForwarder', () => {
  it('holds at most queue + in-flight events when sending never finishes, and counts the rest', () => {
    const started: unknown[] = [];
    const out = sink();
    const f = new EventForwarder(
      (_m, p) => {
        started.push(p);
        return new Promise<void>(() => undefined);
      },
      createLogger(out, 'info', []),
      { queueSize: 64, maxInFlight: 4, logEveryMs: 60_000 },
    );
    for (let i = 0; i < 10_000; i++) f.push('hook.runtime_event', i);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(f.held).toBe(68);
    expect(f.dropped).toBe(10_000 - 68);
    // One warning for the burst, not one per event.
    expect(out.lines).toHaveLength(1);
    expect(JSON.parse(out.lines[0])).toMatchObject({ msg: 'runtime event dropped', events_dropped: 1 });
  });

  it('sends queued events in order as sends complete, and counts failures as dropped', async () => {
    const sent: number[] = [];
    const f = new EventForwarder(
      async (_m, p) => {
        await new Promise((r) => setTimeout(r, 1));
        if (p === 3) throw new Error('gateway gone');
        sent.push(p as number);
      },
      createLogger(sink(), 'info', []),
      { maxInFlight: 1 },
    );
    for (let i = 0; i < 6; i++) f.push('hook.runtime_event', i);
    await f.settled(2000);
    expect(sent).toEqual([0, 1, 2, 4, 5]);
    expect(f.forwarded).toBe(5);
    expect(f.dropped).toBe(1);
  });
});
