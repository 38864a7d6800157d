import { describe, expect, it } from 'vitest';
import { compileConfig } from '../../src/config/compile.js';
import { ConfigError } from '../../src/config/errors.js';

const SECRET = 'config-test-secret-0123456789abcdefghij';

function compile(hook: Record<string, unknown>) {
  return compileConfig(
    {
      tenants: {
        acme: {
          auth: { keys: [{ kid: 'k1', alg: 'HS256', secret: SECRET }] },
          hooks: {
            w: { backend: { type: 'module', module: 'x.js' }, tools: ['get_weather', 'other'], ...hook },
          },
        },
      },
    },
    (ref) => ref,
  );
}

function issues(hook: Record<string, unknown>): string[] {
  try {
    compile(hook);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

const P = 'tenants.acme.hooks.w.tool_definitions';

describe('tool_definitions', () => {
  it('compiles to the MCP description of each tool (input_schema defaults to any object)', () => {
    const hook = compile({
      tool_definitions: {
        get_weather: {
          description: 'Current weather',
          input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
        other: {},
      },
    })
      .tenants.get('acme')
      ?.hooks.get('w');
    expect(hook?.toolDefinitions).toEqual(
      new Map<string, unknown>([
        [
          'get_weather',
          {
            description: 'Current weather',
            inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ],
        ['other', { inputSchema: { type: 'object' } }],
      ]),
    );
  });

  it('is empty when absent', () => {
    expect(compile({}).tenants.get('acme')?.hooks.get('w')?.toolDefinitions.size).toBe(0);
  });

  it('names every bad path at once', () => {
    expect(
      issues({
        tool_definitions: {
          exec: { description: 'not one of the tools' },
          get_weather: {
            input_schema: { type: 'array', properties: { a: 1 }, required: ['a', 2] },
            descripton: 'typo',
          },
          other: { input_schema: { type: 'object', properties: [], required: 'a' } },
        },
      }),
    ).toEqual([`${P}.get_weather.descripton: unknown key`]);
    expect(
      issues({
        tool_definitions: {
          exec: { description: 'not one of the tools' },
          get_weather: { input_schema: { type: 'array', properties: { a: 1 }, required: ['a', 2] } },
          other: { input_schema: { type: 'object', properties: [], required: 'a' } },
        },
      }),
    ).toEqual([
      `${P}.exec: "exec" is not one of this hook's tools`,
      `${P}.get_weather.input_schema.type: must be "object" (MCP tool arguments are a JSON object)`,
      `${P}.get_weather.input_schema.properties.a: must be a schema (an object or a boolean)`,
      `${P}.get_weather.input_schema.required.1: must be a string`,
      `${P}.other.input_schema.properties: must be an object mapping names to schemas`,
      `${P}.other.input_schema.required: must be an array of property names`,
    ]);
  });

  it('refuses a description that is not a string', () => {
    expect(issues({ tool_definitions: { other: { description: 3 } } })).toEqual([
      `${P}.other.description: Invalid input: expected string, received number`,
    ]);
  });
});
