import { describe, expect, it } from 'vitest';
import { constantTimeEqual } from '../../src/lib/constant-time.js';

describe('constantTimeEqual', () => {
  it('is true only for the same string', () => {
    const secret = 'admin-token-0123456789-abcdefghijklmnopqrstuv';
    expect(constantTimeEqual(secret, secret)).toBe(true);
    expect(constantTimeEqual(`${secret}x`, secret)).toBe(false);
    expect(constantTimeEqual(secret.slice(0, -1), secret)).toBe(false);
    expect(constantTimeEqual(`${secret.slice(0, -1)}w`, secret)).toBe(false);
    expect(constantTimeEqual('', secret)).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    // A prefix repeated to the secret's length must not match by wrapping around.
    expect(constantTimeEqual('ab', 'abab')).toBe(false);
    expect(constantTimeEqual('é', 'é')).toBe(true);
  });
});
