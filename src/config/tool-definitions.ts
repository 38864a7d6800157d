import type { ConfigIssue } from './errors.js';
import type { ToolDescription } from './runtime.js';
import type { HookDocument } from './schema.js';

/**
 * A hook's `tool_definitions` as the MCP route lists them. Every problem is reported with its
 * path: a definition for a tool the hook does not have (it could never be listed), and an
 * `input_schema` MCP clients would reject (MCP tool arguments are always a JSON object).
 */
export function compileToolDefinitions(
  tools: ReadonlySet<string>,
  definitions: HookDocument['tool_definitions'],
  path: string,
  issues: ConfigIssue[],
): ReadonlyMap<string, ToolDescription> {
  const out = new Map<string, ToolDescription>();
  for (const [name, def] of Object.entries(definitions)) {
    const at = `${path}.${name}`;
    let ok = true;
    if (!tools.has(name)) {
      issues.push({ path: at, message: `"${name}" is not one of this hook's tools` });
      ok = false;
    }
    const schema = def.input_schema ?? { type: 'object' };
    for (const problem of objectSchemaProblems(schema)) {
      issues.push({ path: `${at}.input_schema${problem.key}`, message: problem.message });
      ok = false;
    }
    if (!ok) continue;
    const description: ToolDescription = { inputSchema: schema };
    if (def.description !== undefined) description.description = def.description;
    out.set(name, description);
  }
  return out;
}

interface SchemaProblem {
  /** Below input_schema: `.type`, `.required.2`, … */
  key: string;
  message: string;
}

function objectSchemaProblems(schema: Record<string, unknown>): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  if (schema.type !== 'object') {
    problems.push({ key: '.type', message: 'must be "object" (MCP tool arguments are a JSON object)' });
  }
  const { properties, required } = schema;
  if (properties !== undefined) {
    if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) {
      problems.push({ key: '.properties', message: 'must be an object mapping names to schemas' });
    } else {
      for (const [k, v] of Object.entries(properties)) {
        if (typeof v !== 'object' && typeof v !== 'boolean') {
          problems.push({ key: `.properties.${k}`, message: 'must be a schema (an object or a boolean)' });
        }
      }
    }
  }
  if (required !== undefined) {
    if (!Array.isArray(required)) {
      problems.push({ key: '.required', message: 'must be an array of property names' });
    } else {
      required.forEach((r, i) => {
        if (typeof r !== 'string') problems.push({ key: `.required.${i}`, message: 'must be a string' });
      });
    }
  }
  return problems;
}
