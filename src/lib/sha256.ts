const encoder = new TextEncoder();

/**
 * SHA-256 of a text as lowercase hex, through Web Crypto (`crypto.subtle`): the same code on Node
 * and in workerd, with no Node module imported.
 */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
