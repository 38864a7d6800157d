/**
 * Tool grants whose entries may carry a condition (`approve_tools`, `rewrite_tools`, a hook's
 * `tools`): a plain name keeps meaning what it always has (granted whatever the arguments); an
 * entry `{ tool, when }` (or `{ name, when }`, the spelling of a hook's `tools`) grants the tool
 * only on calls whose view the condition holds for. The schema and compiler for such a list; the
 * check on a call is checkGrant (src/policy/conditions/grants.ts).
 */
import { z } from 'zod';
import { type CompiledCondition, compileCondition } from '../policy/conditions/index.js';
import { ConfigError, type ConfigIssue } from './errors.js';

export const grantEntrySchema = z.union([
  z.string().min(1),
  z
    .object({
      tool: z.string().min(1).optional(),
      name: z.string().min(1).optional(),
      when: z.string().optional(),
    })
    .strict()
    .refine((e) => (e.tool === undefined) !== (e.name === undefined), {
      message: 'name the tool once, as `tool` or as `name`',
    }),
]);

export const grantListSchema = z.array(grantEntrySchema).default([]);

export type GrantListDocument = z.infer<typeof grantListSchema>;

export interface GrantEntry {
  /** Where the entry is in the config (`tenants.acme.hooks.guard.grants.approve_tools.0`). */
  path: string;
  tool: string;
  /** Absent: granted whatever the arguments. */
  condition?: CompiledCondition;
}

export interface ToolGrant {
  /** Every tool the list names, with or without a condition. */
  names: ReadonlySet<string>;
  /** Each tool's entries in config order. */
  entries: ReadonlyMap<string, readonly GrantEntry[]>;
}

/**
 * Compiles a validated list once per config; each condition's problems are pushed onto `issues`
 * under `<path>.<index>.when`, so one load reports them all.
 */
export function compileToolGrant(list: GrantListDocument, path: string, issues: ConfigIssue[]): ToolGrant {
  const entries = new Map<string, GrantEntry[]>();
  list.forEach((item, i) => {
    const entryPath = `${path}.${i}`;
    let entry: GrantEntry;
    if (typeof item === 'string') {
      entry = { path: entryPath, tool: item };
    } else {
      const tool = (item.tool ?? item.name)!;
      entry = { path: entryPath, tool };
      if (item.when !== undefined) {
        try {
          entry.condition = compileCondition(item.when, `${entryPath}.when`);
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          issues.push(...err.issues);
          return;
        }
      }
    }
    const forTool = entries.get(entry.tool) ?? [];
    forTool.push(entry);
    entries.set(entry.tool, forTool);
  });
  return { names: new Set(entries.keys()), entries };
}

/** The tools a validated list names, with or without a condition. */
export function grantNames(list: GrantListDocument): ReadonlySet<string> {
  return new Set(list.map((item) => (typeof item === 'string' ? item : (item.tool ?? item.name)!)));
}

/**
 * Two grants as one, entries of `first` before those of `second` per tool: a hook may rewrite its
 * own tools and those of `rewrite_tools`, so a rewrite is granted by an entry of either, and an own
 * tool's condition (`tools: [{ name, when }]`) limits its rewrites as it limits `respond`.
 */
export function mergeToolGrants(first: ToolGrant, second: ToolGrant): ToolGrant {
  const entries = new Map<string, GrantEntry[]>();
  for (const grant of [first, second]) {
    for (const [tool, list] of grant.entries) entries.set(tool, [...(entries.get(tool) ?? []), ...list]);
  }
  return { names: new Set(entries.keys()), entries };
}
