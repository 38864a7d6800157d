import { afterEach, describe, expect, it } from 'vitest';
import {
  configDocument,
  HOOK_NODE_FLAGS_ENV,
  hookNodeFlags,
  STDIO_HOOK,
  TENANT,
  weatherHookArgs,
} from '../../bench/lib/config.js';

const saved = process.env[HOOK_NODE_FLAGS_ENV];
afterEach(() => {
  if (saved === undefined) delete process.env[HOOK_NODE_FLAGS_ENV];
  else process.env[HOOK_NODE_FLAGS_ENV] = saved;
});

function stdioCommand(): unknown {
  const doc = configDocument({ stdio: true }) as {
    tenants: Record<string, { hooks: Record<string, { backend: { command?: unknown } }> }>;
  };
  return doc.tenants[TENANT].hooks[STDIO_HOOK].backend.command;
}

describe('the weather hook processes of the bench', () => {
  it('run under 4 MB semi-spaces unless told otherwise', () => {
    delete process.env[HOOK_NODE_FLAGS_ENV];
    expect(hookNodeFlags()).toEqual(['--max-semi-space-size=4']);
    expect(weatherHookArgs()).toEqual([
      '--max-semi-space-size=4',
      '--import',
      'tsx',
      'examples/weather-sdk.ts',
    ]);
  });

  it('take the flags run.ts passes on, and none for ""', () => {
    process.env[HOOK_NODE_FLAGS_ENV] = '--max-semi-space-size=8  --no-memory-reducer';
    expect(hookNodeFlags()).toEqual(['--max-semi-space-size=8', '--no-memory-reducer']);
    process.env[HOOK_NODE_FLAGS_ENV] = '';
    expect(weatherHookArgs()).toEqual(['--import', 'tsx', 'examples/weather-sdk.ts']);
  });

  it("give the gateway's stdio hook the same command as the stdio floor's", () => {
    process.env[HOOK_NODE_FLAGS_ENV] = '--max-semi-space-size=2';
    expect(stdioCommand()).toEqual([process.execPath, ...weatherHookArgs()]);
  });
});
