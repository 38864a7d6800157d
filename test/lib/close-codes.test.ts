import { describe, expect, it } from 'vitest';
import { CloseCode, closeReaction, describeCloseCode } from '../../src/lib/close-codes.js';

describe('close codes', () => {
  it('give each code one meaning: no two names share a number', () => {
    const values = Object.values(CloseCode);
    expect(new Set(values).size).toBe(values.length);
  });

  it('tell a client how to react', () => {
    expect(closeReaction(CloseCode.TokenExpired)).toBe('reauthenticate');
    expect(closeReaction(CloseCode.TokenRevoked)).toBe('reauthenticate');
    expect(closeReaction(CloseCode.TryAgainLater)).toBe('reconnect');
    expect(closeReaction(CloseCode.GoingAway)).toBe('reconnect');
    expect(closeReaction(CloseCode.TooBig)).toBe('reconnect');
    expect(closeReaction(CloseCode.InternalError)).toBe('reconnect');
    expect(closeReaction(1006)).toBe('reconnect');
    expect(closeReaction(CloseCode.HookRemoved)).toBe('give_up');
    expect(closeReaction(4999)).toBe('reconnect');
  });

  it('keep slow consumer and expired token apart (they once shared 1008)', () => {
    expect(CloseCode.TryAgainLater).toBe(1013);
    expect(CloseCode.TokenExpired).toBe(4001);
    expect(describeCloseCode(1013)).toMatch(/slow consumer/);
    expect(describeCloseCode(4001)).toBe('token expired');
  });
});
