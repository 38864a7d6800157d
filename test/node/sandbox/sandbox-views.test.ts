import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { StdioBackend } from '../../../src/backends/stdio.js';
import { loadConfigFile } from '../../../src/node/config-loader.js';
import { createNodeLogger } from '../../../src/node/logger.js';
import { detectSandbox } from '../../../src/node/sandbox/sandbox.js';
import { type RunningGateway, startGateway } from '../../../src/node/server.js';
import { signDevToken } from '../../../src/node/token.js';
import { LogCapture, REPO } from '../../helpers/gateway.js';

/**
 * A tenant a reload adds is covered in the sandboxes of the hooks that were already running: a
 * real gateway loads a real config file (its `file:` secrets collected by the real loader), real
 * hooks run in the real bwrap, and the reload adds tenant beta whose hook and key file sit inside
 * tenant acme's hook's view (the config directory, its default cwd).
 */

const SPY = join(REPO, 'test', 'helpers', 'sandbox-spy-hook.mjs');
const MISBEHAVING = join(REPO, 'test', 'helpers', 'misbehaving-hook.mjs');
const support = detectSandbox();
const bwrapAvailable = support.available || !!process.env.CI; // CI installs bubblewrap
const why = support.available ? '' : ` (SKIPPED: ${support.reason})`;

const ACME_SECRET = 'acme-hs256-secret-from-a-file-0123456789abcdef';
const BETA_SECRET = 'beta-hs256-secret-from-a-file-0123456789abcdef';
const BETA_MARKER = 'beta-hook-source-marker';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One config directory as an admin lays it out: the config, a key file per tenant, a hook directory each. */
function fixture(opts: { deployBeta?: boolean; betaKeyFromEnv?: boolean; betaDir?: boolean } = {}) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookgate-views-')));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  chmodSync(dir, 0o755);
  for (const d of ['acme', 'keys']) mkdirSync(join(dir, d), { mode: 0o755 });
  // beta's directory is there from the start unless the test deploys it with beta's hook.
  if (opts.betaDir !== false) mkdirSync(join(dir, 'beta'), { mode: 0o755 });
  copyFileSync(SPY, join(dir, 'acme', 'spy.mjs'));
  // World-readable on purpose, so only the sandbox's covering keeps them from acme's hook.
  const deployBeta = () => {
    mkdirSync(join(dir, 'beta'), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, 'beta', 'hook.mjs'), `// ${BETA_MARKER}\n${readFileSync(MISBEHAVING, 'utf8')}`);
  };
  if (opts.deployBeta !== false) deployBeta();
  writeFileSync(join(dir, 'keys', 'acme.key'), `${ACME_SECRET}\n`, { mode: 0o644 });
  writeFileSync(join(dir, 'keys', 'beta.key'), `${BETA_SECRET}\n`, { mode: 0o644 });
  const acme = {
    auth: { keys: [{ kid: 'a1', alg: 'HS256', secret: 'file:keys/acme.key' }] },
    hooks: {
      spy: { backend: { type: 'stdio', command: [process.execPath, 'acme/spy.mjs'] }, tools: ['spy'] },
    },
  };
  const beta = {
    auth: {
      keys: [
        {
          kid: 'b1',
          alg: 'HS256',
          secret: opts.betaKeyFromEnv ? 'env:BETA_VIEWS_SECRET' : 'file:keys/beta.key',
        },
      ],
    },
    hooks: { h: { backend: { type: 'stdio', command: [process.execPath, 'beta/hook.mjs'] } } },
  };
  const config = join(dir, 'hookgate.json');
  const write = (tenants: object) =>
    writeFileSync(config, JSON.stringify({ server: { port: 0, sandbox: 'required' }, tenants }), {
      mode: 0o644,
    });
  write({ acme });
  return {
    dir,
    config,
    betaHook: join(dir, 'beta', 'hook.mjs'),
    betaKey: join(dir, 'keys', 'beta.key'),
    addBeta: () => write({ acme, beta }),
    deployBeta,
  };
}

async function start(config: string): Promise<RunningGateway> {
  const loaded = loadConfigFile(config);
  const gw = await startGateway({
    config: loaded.config,
    baseDir: loaded.baseDir,
    privatePaths: loaded.privatePaths,
    log: createNodeLogger('info', new LogCapture()),
    loadConfig: () => loadConfigFile(config),
  });
  cleanups.push(() => gw.close());
  return gw;
}

/** What acme's spy hook reads of `paths`, from inside its sandbox. */
async function spyReads(gw: RunningGateway, config: string, paths: string[]) {
  const token = await signDevToken(loadConfigFile(config).config.tenants.get('acme')!, {
    hooks: ['*'],
    ttlSeconds: 300,
  });
  // The hook is a real sandboxed process, started with the gateway and restarted by a reload: until
  // it is up, a call gets its failure answer (continue), so ask until it answers itself.
  let body: any;
  await expect
    .poll(
      async () => {
        const res = await fetch(`${gw.url}/v1/tenants/acme/hooks/spy`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'hook.before_tool',
            params: { tool: 'spy', arguments: { read: paths } },
          }),
        });
        body = await res.json();
        return body.result?.action;
      },
      { timeout: 60_000, interval: 100 },
    )
    .toBe('respond');
  return JSON.parse(body.result.result.for_llm).reads as Record<string, { text?: string; error?: string }>;
}

describe.skipIf(!bwrapAvailable)(`a reload that adds a tenant${why}`, () => {
  it('covers its hook and its file: secret in the views of hooks already running', async () => {
    const f = fixture();
    const gw = await start(f.config);
    // Before beta is a tenant, its files are just files in acme's view: the control.
    const before = await spyReads(gw, f.config, [f.betaHook, f.betaKey]);
    expect(before[f.betaHook].text).toContain(BETA_MARKER);
    expect(before[f.betaKey].text).toContain(BETA_SECRET);

    f.addBeta();
    const outcome = await gw.reload();
    expect(outcome).toMatchObject({
      ok: true,
      summary: { tenants: { added: ['beta'] }, hooks: { added: ['beta/h'], restarted: ['acme/spy'] } },
    });

    const after = await spyReads(gw, f.config, [f.betaHook, f.betaKey]);
    expect(after[f.betaHook]).toEqual({ error: 'EACCES' });
    expect(after[f.betaKey]).toEqual({ error: 'EACCES' });
  }, 180_000);

  it('covers the directory its hook will appear in when the reload comes before the deploy', async () => {
    // beta's hook is not there at the reload, only the directory it will be deployed to: acme's
    // hook is restarted into a view that covers that directory, so it never reads the script that
    // arrives after the reload (the running process, planned without beta, would have).
    process.env.BETA_VIEWS_SECRET = BETA_SECRET;
    cleanups.push(() => delete process.env.BETA_VIEWS_SECRET);
    const f = fixture({ deployBeta: false, betaKeyFromEnv: true });
    const gw = await start(f.config);
    f.addBeta();
    expect(await gw.reload()).toMatchObject({
      ok: true,
      summary: { tenants: { added: ['beta'] }, hooks: { restarted: ['acme/spy'] } },
    });
    f.deployBeta();
    expect((await spyReads(gw, f.config, [f.betaHook]))[f.betaHook]).toEqual({ error: 'EACCES' });
  }, 180_000);

  it('plans every later spawn of a running hook with the current config', async () => {
    // Nothing of beta is in acme's view at the reload (its key comes from the environment, its
    // hook and the directory it sits in are deployed later), so acme's hook keeps running. When it
    // restarts after beta's hook arrived, that spawn is planned with the config that names beta,
    // not the one it started with.
    process.env.BETA_VIEWS_SECRET = BETA_SECRET;
    cleanups.push(() => delete process.env.BETA_VIEWS_SECRET);
    const f = fixture({ deployBeta: false, betaKeyFromEnv: true, betaDir: false });
    const gw = await start(f.config);
    // acme's hook up before the reload: on a loaded machine its first spawn can come after the
    // reload, and is then (rightly) planned with beta in the config, which is not this case.
    await spyReads(gw, f.config, []);
    f.addBeta();
    expect(await gw.reload()).toMatchObject({
      ok: true,
      summary: { tenants: { added: ['beta'] }, hooks: { unchanged: ['acme/spy'], restarted: [] } },
    });
    f.deployBeta();
    expect((await spyReads(gw, f.config, [f.betaHook]))[f.betaHook]).toEqual({
      text: expect.stringContaining(BETA_MARKER),
    });

    // The hook process dies (bwrap killed); the backend restarts it.
    const backend = gw.live.current.backends.get(gw.live.hook('acme', 'spy')!) as StdioBackend;
    const starts = backend.starts();
    (backend as unknown as { child: ChildProcess }).child.kill('SIGKILL');
    await expect.poll(() => backend.starts() > starts && backend.ready(), { timeout: 20_000 }).toBe(true);

    expect((await spyReads(gw, f.config, [f.betaHook]))[f.betaHook]).toEqual({ error: 'EACCES' });
  }, 180_000);
});
