/**
 * The base of every error hookgate raises on purpose. Callers and tests match on `code`, a stable
 * string; messages are for people and may change. As jose's JOSEError: one base class, one `code`
 * per meaning, `instanceof HookgateError` tells hookgate's own failures from everything else.
 */
export class HookgateError<Code extends string = string> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'HookgateError';
  }
}
