import { chmodSync, copyFileSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectSandbox } from '../../../src/node/sandbox/sandbox.js';
import { REPO, startTestGateway, tenantDoc } from '../../helpers/gateway.js';

const HOOK = join(REPO, 'test', 'helpers', 'misbehaving-hook.mjs');
const support = detectSandbox();
const setpriv = support.available && support.identity.kind === 'setpriv';
const stdio = (backend: Record<string, unknown> = {}) => ({
  backend: { type: 'stdio', command: [process.execPath, HOOK], ...backend },
  tools: ['ok'],
});

async function startupLogs(server: object, hooks: Record<string, unknown>) {
  // Some of these hooks cannot start: startup's own words are the subject.
  const gw = await startTestGateway({ server, tenants: { acme: tenantDoc(hooks) } }, { waitForHooks: false });
  await gw.close();
  return gw.logs.lines;
}

describe('hookSandboxes: what startup says about the sandbox', () => {
  it('says nothing and probes nothing without stdio hooks', async () => {
    const lines = await startupLogs(
      {},
      { m: { backend: { type: 'module', module: 'examples/weather-hook.ts' } } },
    );
    expect(lines.filter((l) => l.sandbox)).toEqual([]);
  });

  it('warns when server.sandbox is off', async () => {
    const lines = await startupLogs({ sandbox: 'off' }, { h: stdio() });
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', sandbox: 'off' }));
  });

  it.skipIf(!support.available && !process.env.CI)(
    `warns that inherit_env hands the hook the whole environment${support.available ? '' : ` (skipped: ${support.reason})`}`,
    async () => {
      const lines = await startupLogs({}, { h: stdio({ inherit_env: true }) });
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'warn', hook: 'h', msg: expect.stringContaining('inherit_env') }),
      );
    },
  );

  it.skipIf(!setpriv)(
    `names the paths uid 65534 cannot use, and the hook then fails to start${setpriv ? '' : ' (SKIPPED: needs a root gateway, setpriv identity)'}`,
    async () => {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookgate-denied-')));
      chmodSync(dir, 0o700);
      copyFileSync(HOOK, join(dir, 'hook.mjs'));
      const lines = await startupLogs(
        {},
        { h: stdio({ command: [process.execPath, 'hook.mjs'], cwd: dir }) },
      );
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'warn', hook: 'h', denied: [`${dir} (needs read for uid 65534)`] }),
      );
      expect(lines).toContainEqual(expect.objectContaining({ hook: 'h', msg: 'backend did not start' }));
    },
  );
});
