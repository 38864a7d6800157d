import { canonicalJson } from '../lib/canonical-json.js';

/**
 * The config revision every decision record names: 16 hex digits from the validated config
 * document (defaults filled in, secrets still as their references), so replicas serving the same
 * file report the same revision and a reload that changes anything reports a new one. Two 32-bit
 * FNV-1a hashes with different offsets: it tells configs apart, it authenticates nothing, and it is
 * synchronous, as compiling is.
 */
export function configRevision(doc: unknown): string {
  const text = canonicalJson(doc);
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}
