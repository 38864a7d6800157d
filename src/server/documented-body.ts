import type { z } from '@hono/zod-openapi';

/**
 * Where a host's body breaks the fields its route documents (openapi.ts), as "path: message" of the
 * first issue, or undefined when it keeps them. A dialect's translator reads only the fields it
 * needs; this check makes the route refuse, with 400, what the document says it does not take,
 * e.g. a `prompt` that is not a string on an event whose translation never reads it.
 */
export function documentedBodyViolation(fields: z.ZodType, body: unknown): string | undefined {
  const parsed = fields.safeParse(body);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`;
}
