import type { z } from 'zod';
import { HookgateError } from '../lib/errors.js';

/** One problem in a config document, named by its path (`tenants.acme.hooks.weather.backend.command`). */
export interface ConfigIssue {
  path: string;
  message: string;
}

export class ConfigError extends HookgateError<'CONFIG_INVALID'> {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super('CONFIG_INVALID', issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('\n'));
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

/** zod issues → our issues; a missing value reads as `required`, the way a user thinks of it. */
export function fromZodIssues(issues: readonly z.core.$ZodIssue[]): ConfigIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'invalid_union' && 'errors' in issue && Array.isArray(issue.errors)) {
      // Report the branch that got furthest, instead of zod's generic "invalid input".
      const branches = issue.errors as z.core.$ZodIssue[][];
      const best = branches.reduce((a, b) => (depth(b) > depth(a) ? b : a), branches[0] ?? []);
      if (best.length > 0) {
        return fromZodIssues(best.map((i) => ({ ...i, path: [...issue.path, ...i.path] })));
      }
    }
    const path = formatPath(issue.path);
    if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) {
      return [{ path, message: 'required' }];
    }
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ path: path ? `${path}.${k}` : k, message: 'unknown key' }));
    }
    return [{ path, message: issue.message }];
  });
}

function depth(issues: readonly z.core.$ZodIssue[]): number {
  const strict = issues.filter(
    (i) => i.code !== 'invalid_type' || !/received undefined/.test(i.message),
  ).length;
  return Math.max(0, ...issues.map((i) => i.path.length)) * 10 - strict;
}
