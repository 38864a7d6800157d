import { canonicalJson } from '../lib/canonical-json.js';
import { sha256Hex } from '../lib/sha256.js';

/**
 * The digest an approval is bound to: SHA-256 of the arguments' canonical JSON, so the same
 * arguments in another key order bind the same way and any changed value binds differently.
 */
export function argsDigest(args: unknown): Promise<string> {
  return sha256Hex(canonicalJson(args ?? {}));
}

export const ARGS_DIGEST_PATTERN = /^[0-9a-f]{64}$/;
