import { describe, expect, it } from 'vitest';
import { NO_REASON, skippedLines, skipReason } from './skip-reporter.js';

describe('the skip reporter', () => {
  it("takes the reason from a describe title's (skipped: …), nested parentheses included", () => {
    expect(
      skipReason(
        'RedisClient against redis-server (skipped: redis-server is not installed (set REDIS_SERVER or install redis-server)) > answers PING',
      ),
    ).toEqual({
      name: 'RedisClient against redis-server > answers PING',
      reason: 'redis-server is not installed (set REDIS_SERVER or install redis-server)',
    });
    expect(skipReason('names the paths (SKIPPED: needs a root gateway, setpriv identity)').reason).toBe(
      'needs a root gateway, setpriv identity',
    );
  });

  it('prefers the note of ctx.skip(note), and says when a skip gives no reason', () => {
    expect(skipReason('a > b (skipped: from the title)', 'from the note').reason).toBe('from the note');
    expect(skipReason('a > b')).toEqual({ name: 'a > b', reason: NO_REASON });
  });

  it('lists each skipped test under its file and reason', () => {
    const lines = skippedLines([
      {
        relativeModuleId: 'test/x.test.ts',
        tests: [
          { fullName: 'suite (skipped: no bwrap) > one' },
          { fullName: 'suite (skipped: no bwrap) > two' },
          { fullName: 'other', note: 'no python3' },
        ],
      },
    ]);
    expect(lines).toEqual([
      '↓ test/x.test.ts: 2 skipped: no bwrap',
      '    suite > one',
      '    suite > two',
      '↓ test/x.test.ts: 1 skipped: no python3',
      '    other',
    ]);
  });
});
