/**
 * hookgate as its users get it: `npm pack` (which builds dist/), the tarball installed into an empty
 * project, then used from plain `.mjs` with no TypeScript loader: every export imported, a stdio
 * hook written with the SDK run, `npx hookgate` called, the demo served and called, a `.ts` consumer
 * type-checked with the repository's tsc, and the tarball checked by publint and attw.
 *
 * Slowish (a build, a pack and an install: about 20 s). The install prefers npm's cache (filled by
 * the repository's own `npm ci`) and goes to the registry only for what is missing.
 * HOOKGATE_PACKAGE_NODES (paths separated by ":") runs the plain-Node checks on more Node binaries.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/gateway.js';

const run = promisify(execFile);
const NODES = [process.execPath, ...(process.env.HOOKGATE_PACKAGE_NODES ?? '').split(':').filter(Boolean)];
const NPM_ENV = {
  ...process.env,
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
};
const repoPackage = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));

let work: string;
let tarball: string;
let app: string;
const children: ChildProcess[] = [];

async function sh(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = NPM_ENV) {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err: any) {
    return { code: err.code as number, stdout: String(err.stdout), stderr: String(err.stderr) };
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'hookgate-package-'));
  const packed = await sh('npm', ['pack', '--json', '--pack-destination', work], REPO);
  expect(packed.code, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('[')));
  tarball = join(work, info.filename);
  app = join(work, 'app');
  await sh('mkdir', ['-p', app], work);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const installed = await sh(
    'npm',
    ['install', '--prefer-offline', tarball, `@types/node@${repoPackage.devDependencies['@types/node']}`],
    app,
  );
  expect(installed.code, installed.stderr).toBe(0);
}, 240_000);

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('holds the compiled code, the LICENSE, the docs and the decision record schema, and no tests, benches or sources', async () => {
    const listed = await sh('tar', ['-tzf', tarball], work);
    const files = listed.stdout.split('\n').filter(Boolean);
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/dist/src/node/cli/bin.js');
    expect(files).toContain('package/dist/src/sdk/stdio.d.ts');
    expect(files).toContain('package/schemas/decision-record.v1.json');
    expect(files.filter((f) => /^package\/(test|bench|\.ci|src|scripts)\//.test(f))).toEqual([]);
    expect(readFileSync(join(REPO, 'LICENSE'), 'utf8')).toContain('Apache License');
  });

  it('is clean for publint and attw (ESM only)', async () => {
    const publint = await sh(join(REPO, 'node_modules/.bin/publint'), ['run', '--strict', tarball], REPO);
    expect(publint.code, publint.stdout + publint.stderr).toBe(0);
    expect(publint.stdout).toContain('All good');
    const attw = await sh(
      join(REPO, 'node_modules/.bin/attw'),
      [tarball, '--profile', 'esm-only', '--format', 'table-flipped'],
      REPO,
    );
    expect(attw.code, attw.stdout + attw.stderr).toBe(0);
  }, 120_000);
});

describe('installed into an empty project', () => {
  const exportsMap = repoPackage.exports as Record<string, unknown>;
  const subpaths = Object.keys(exportsMap).filter((k) => k !== './package.json');

  it('imports every export from plain .mjs, on every Node it is given', async () => {
    // What each entry must offer at least; a new export must be named here too.
    const expected: Record<string, string[]> = {
      hookgate: ['defineHook', 'defineTool', 'toFetchHandler', 'HookgateError', 'ConfigError', 'z'],
      'hookgate/sdk': ['defineHook', 'defineTool', 'dispatchToHook', 'toFetchHandler', 'toToolResult', 'z'],
      'hookgate/sdk/stdio': ['serveStdio', 'isMainModule', 'MAX_REPLY_LINE_BYTES'],
      'hookgate/server': ['createApp', 'assembleGateway', 'compileConfig', 'buildOpenApiDocument', 'Gateway'],
      'hookgate/node': ['startGateway', 'loadConfigFile', 'signDevToken', 'createNodeLogger', 'main'],
      'hookgate/bridge': ['runBridge', 'parseBridgeArgs', 'bridgeCommand'],
    };
    expect(Object.keys(expected).sort()).toEqual(subpaths.map((s) => `hookgate${s.slice(1)}`).sort());
    writeFileSync(
      join(app, 'imports.mjs'),
      `const out = {};\nfor (const spec of ${JSON.stringify(Object.keys(expected))}) out[spec] = Object.keys(await import(spec));\nconsole.log(JSON.stringify(out));\n`,
    );
    for (const node of NODES) {
      const r = await sh(node, ['imports.mjs'], app);
      expect(r.code, `${node}: ${r.stderr}`).toBe(0);
      const got = JSON.parse(r.stdout) as Record<string, string[]>;
      for (const [spec, names] of Object.entries(expected))
        expect(got[spec], spec).toEqual(expect.arrayContaining(names));
    }
  });

  it('runs a PicoClaw stdio hook written with the SDK, in plain Node', async () => {
    writeFileSync(
      join(app, 'weather.mjs'),
      `import { defineHook, z } from 'hookgate/sdk';
import { serveStdio } from 'hookgate/sdk/stdio';
serveStdio(defineHook({
  name: 'weather',
  tools: [{ name: 'get_weather', description: 'Current weather', parameters: z.object({ city: z.string() }),
            handler: ({ city }) => city + ': 18 C' }],
}));
`,
    );
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'hook.hello',
        params: { name: 'weather', version: 1, modes: ['tool'] },
      },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'hook.before_tool',
        params: { tool: 'get_weather', arguments: { city: 'Berlin' } },
      },
    ];
    for (const node of NODES) {
      const child = spawn(node, ['weather.mjs'], { cwd: app, stdio: ['pipe', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      child.stdout.on('data', (b) => {
        out += b;
      });
      child.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
      const code = await new Promise((r) => child.once('exit', r));
      expect(code, node).toBe(0);
      const answers = out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(answers.find((a) => a.id === 2)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: { action: 'respond', result: { for_llm: 'Berlin: 18 C', silent: false, is_error: false } },
      });
    }
  });

  it('keeps Node out of hookgate, hookgate/sdk and hookgate/server: no node:*, ws or pino below them', async () => {
    for (const spec of ['hookgate', 'hookgate/sdk', 'hookgate/server']) {
      const offences: string[] = [];
      const result = await build({
        absWorkingDir: app,
        stdin: { contents: `export * from '${spec}';`, resolveDir: app },
        bundle: true,
        write: false,
        metafile: true,
        format: 'esm',
        platform: 'neutral',
        conditions: ['workerd', 'worker', 'browser', 'import', 'module'],
        mainFields: ['browser', 'module', 'main'],
        logLevel: 'silent',
        plugins: [
          {
            name: 'forbidden',
            setup(b) {
              b.onResolve({ filter: /^(node:|ws$|ws\/|pino$|pino\/)/ }, (args) => {
                offences.push(`${args.importer.replace(app, '')} -> ${args.path}`);
                return { path: args.path, external: true };
              });
            },
          },
        ],
      });
      expect(offences, spec).toEqual([]);
      const inputs = Object.keys(result.metafile!.inputs);
      expect(
        inputs.some((f) => f.includes('hookgate/dist/src/')),
        spec,
      ).toBe(true);
      expect(
        inputs.filter((f) => /hookgate\/dist\/src\/(node|bridge)\/|sdk\/stdio\.js/.test(f)),
        spec,
      ).toEqual([]);
    }
  });

  it('type-checks a TypeScript consumer against the shipped .d.ts (skipLibCheck off)', async () => {
    writeFileSync(
      join(app, 'consumer.ts'),
      `import { defineHook, HookgateError, z } from 'hookgate';
import { type FetchHandler, toFetchHandler } from 'hookgate/sdk';
import { serveStdio } from 'hookgate/sdk/stdio';
import { assembleGateway, compileConfig, createApp, type GatewayConfig } from 'hookgate/server';
import { loadConfigFile, type RunningGateway, startGateway } from 'hookgate/node';
import { runBridge } from 'hookgate/bridge';

const hook = defineHook({
  name: 'weather',
  tools: [{ name: 'get_weather', description: 'Current weather', parameters: z.object({ city: z.string() }),
            handler: ({ city }) => city.toUpperCase() }],
});
const handler: FetchHandler = toFetchHandler(hook, { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' });
serveStdio(hook);
async function embed(config: GatewayConfig): Promise<RunningGateway> {
  return startGateway({ config, baseDir: '.', port: 0 });
}
void [handler, embed, assembleGateway, compileConfig, createApp, loadConfigFile, runBridge, HookgateError];
// @ts-expect-error a wrong type must be caught: the declarations are really checked
const bad: number = defineHook;
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        include: ['consumer.ts'],
      }),
    );
    const tsc = await sh(join(REPO, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], app);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.code).toBe(0);
  }, 60_000);

  it('runs `npx hookgate --help` and `--version` with the compiled CLI', async () => {
    const help = await sh('npx', ['--no-install', 'hookgate', '--help'], app);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/usage: hookgate <command>/);
    for (const name of ['serve', 'token', 'check-config', 'bridge', 'keygen', 'init'])
      expect(help.stdout).toContain(name);
    const version = await sh('npx', ['--no-install', 'hookgate', '--version'], app);
    expect(version.stdout.trim()).toBe(repoPackage.version);
    // No TypeScript at run time: tsx is not installed with the package.
    const tsx = await sh(
      process.execPath,
      ['-e', "import('tsx').then(() => process.exit(3), () => process.exit(0))"],
      app,
    );
    expect(tsx.code).toBe(0);
  }, 60_000);

  it('writes the OpenClaw plugin with a hook’s tools (`hookgate setup openclaw --out`) from the shipped copy', async () => {
    const env = {
      ...NPM_ENV,
      ACME_HOOK_SECRET: 'package-test-secret-0123456789-abcdefghij',
      HOOKGATE_ADMIN_TOKEN: 'package-test-admin-0123456789-abcdefghijkl',
    };
    const config = join(app, 'node_modules/hookgate/examples/hookgate.yaml');
    const args = ['setup', 'openclaw', '--config', config, '--tenant', 'acme', '--hook', 'weather'];
    const r = await sh('npx', ['--no-install', 'hookgate', ...args, '--out', 'oc-plugin'], app, env);
    expect(r.code, r.stderr).toBe(0);
    const plugin = join(app, 'oc-plugin');
    expect(JSON.parse(readFileSync(join(plugin, 'openclaw.plugin.json'), 'utf8')).contracts).toEqual({
      tools: ['get_weather'],
    });
    expect(JSON.parse(readFileSync(join(plugin, 'hookgate-tools.json'), 'utf8')).tools[0].name).toBe(
      'get_weather',
    );
    expect(readFileSync(join(plugin, 'index.js'), 'utf8')).toBe(
      readFileSync(join(REPO, 'integrations/openclaw/index.js'), 'utf8'),
    );
  }, 60_000);

  it('serves the demo and answers the printed call', async () => {
    const child = spawn(join(app, 'node_modules/.bin/hookgate'), ['serve', '--demo', '--port', '0'], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    let err = '';
    child.stderr.on('data', (b) => {
      err += b;
    });
    await expect.poll(() => out + err, { timeout: 20_000 }).toMatch(/-d '.*'\n/);
    const url = /curl -s (\S+)/.exec(out)![1];
    const token = /Authorization: Bearer ([^"]+)"/.exec(out)![1];
    const body = /-d '(.*)'/.exec(out)![1];
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        action: 'respond',
        result: { for_llm: 'Berlin: 18 C, light rain', silent: false, is_error: false },
      },
    });
    child.kill('SIGTERM');
    expect(await new Promise((r) => child.once('exit', r))).toBe(0);
  }, 60_000);

  it('prints host commands (`setup hermes`, `setup picoclaw`) that run with no hookgate on PATH', async () => {
    // A project-local install puts hookgate in node_modules/.bin only; hosts run commands with a PATH
    // of their own. Run what setup prints, against the demo gateway, with a PATH that holds nothing.
    const child = spawn(join(app, 'node_modules/.bin/hookgate'), ['serve', '--demo', '--port', '0'], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    await expect.poll(() => out, { timeout: 20_000 }).toMatch(/-d '.*'\n/);
    const base = /gateway on (\S+)/.exec(out)![1];
    const token = /Authorization: Bearer ([^"]+)"/.exec(out)![1];
    // The demo's hook as setup reads it; its signing secret is nowhere in setup's environment.
    writeFileSync(
      join(app, 'demo.yaml'),
      JSON.stringify({
        tenants: {
          demo: {
            auth: { keys: [{ alg: 'HS256', secret: 'env:PACKAGE_TEST_UNSET_SECRET' }] },
            hooks: {
              weather: {
                backend: { type: 'module', module: 'x.js' },
                modes: ['tool'],
                tools: ['get_weather'],
              },
            },
          },
        },
      }),
    );
    const setup = (host: string) =>
      sh(
        'npx',
        [
          '--no-install',
          'hookgate',
          'setup',
          host,
          '--config',
          'demo.yaml',
          '--tenant',
          'demo',
          '--hook',
          'weather',
          '--url',
          base,
        ],
        app,
      );
    const noPath = { PATH: '/nonexistent', HOOKGATE_TOKEN: token };

    const hermes = await setup('hermes');
    expect(hermes.code, hermes.stderr).toBe(0);
    const line = /pre_tool_call:\n\s+- command: (".*")/.exec(hermes.stdout)![1];
    const argv: string[] = JSON.parse(
      (
        await sh(
          'python3',
          ['-c', 'import json,shlex,sys; print(json.dumps(shlex.split(json.loads(sys.argv[1]))))', line],
          app,
        )
      ).stdout,
    );
    const event = JSON.stringify({
      hook_event_name: 'pre_tool_call',
      tool_name: 'get_weather',
      tool_input: { city: 'Berlin' },
      extra: {},
    });
    const fired = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn(argv[0], argv.slice(1), { cwd: app, env: noPath, stdio: ['pipe', 'pipe', 'inherit'] });
      let o = '';
      c.stdout.on('data', (b) => {
        o += b;
      });
      c.on('close', (code) => resolve({ code, out: o }));
      c.stdin.end(event);
    });
    expect(fired.code).toBe(0);
    expect(JSON.parse(fired.out)).toMatchObject({
      action: 'block',
      message: expect.stringContaining('Berlin'),
    });

    const picoclaw = await setup('picoclaw');
    expect(picoclaw.code, picoclaw.stderr).toBe(0);
    const command: string[] = JSON.parse(picoclaw.stdout).hooks.processes.weather.command;
    expect(command[1]).toBe(join(app, 'node_modules/hookgate/dist/src/node/cli/bin.js'));
    const answered = await new Promise<string>((resolve) => {
      const c = spawn(command[0], command.slice(1), {
        cwd: app,
        env: noPath,
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      children.push(c);
      let o = '';
      c.stdout.on('data', (b) => {
        o += b;
        if (o.includes('"id":2')) {
          c.stdin.end();
          resolve(o);
        }
      });
      c.stdin.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'hook.hello', params: { name: 'weather', version: 1, modes: ['tool'] } })}\n` +
          `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'hook.before_tool', params: { tool: 'get_weather', arguments: { city: 'Berlin' } } })}\n`,
      );
    });
    expect(answered).toContain('Berlin: 18 C, light rain');
    child.kill('SIGTERM');
  }, 60_000);
});
