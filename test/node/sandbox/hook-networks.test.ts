import { describe, expect, it } from 'vitest';
import { hookNetworks, type NetworkedHook } from '../../../src/node/sandbox/hook-networks.js';
import { createNodeLogger } from '../../../src/node/logger.js';
import type { SandboxSupport } from '../../../src/node/sandbox/sandbox.js';
import type { OutboundSupport } from '../../../src/node/sandbox/sandbox-network.js';
import { LogCapture } from '../../helpers/gateway.js';

/**
 * What startup does with `sandbox.network` when this host cannot give it: the support is stated
 * here (no namespace, no slirp4netns), so every case runs on any machine; the real thing, from
 * inside real sandboxes, is test/node/sandbox/sandbox-network.test.ts.
 */
const support = (networkIsolation: true | string): SandboxSupport & { available: true } => ({
  available: true,
  bwrap: '/usr/bin/bwrap',
  identity: { kind: 'userns' },
  host: { dirs: ['/usr'], symlinks: [] },
  networkIsolation,
});
const slirp = (): OutboundSupport => ({ available: true, slirp4netns: '/usr/bin/slirp4netns' });
const NO_SLIRP = 'slirp4netns is not on PATH (install slirp4netns)';
const noSlirp = (): OutboundSupport => ({ available: false, reason: NO_SLIRP });
const hooks: NetworkedHook[] = [
  { tenant: 'acme', name: 'api', network: 'outbound' },
  { tenant: 'acme', name: 'offline', network: 'none' },
  { tenant: 'globex', name: 'legacy', network: 'host' },
];
const bwrapSpec = {
  command: '/usr/bin/bwrap',
  args: ['--unshare-net', '--unshare-user', '--uid', '65534', '--gid', '65534', '--', 'hook'],
  env: {},
};

function start(setting: 'auto' | 'required', isolation: true | string, outbound = slirp) {
  const logs = new LogCapture();
  const networks = hookNetworks(hooks, setting, support(isolation), createNodeLogger('info', logs), outbound);
  return { networks, logs };
}

describe('hookNetworks: sandbox.network as this host can give it', () => {
  it('names the hooks given the host network at startup, and only those share it', () => {
    const { networks, logs } = start('required', true);
    expect(logs.lines.find((l) => l.sandbox === 'host-network')).toMatchObject({
      level: 'warn',
      hooks: ['globex/legacy'],
    });
    expect(hooks.map((h) => networks.sharesHost(h))).toEqual([false, false, true]);
    // Only the outbound hook's spawn gets the helper attached.
    expect(networks.attach(bwrapSpec, hooks[0]).attach).toBeTypeOf('function');
    expect(networks.attach(bwrapSpec, hooks[1]).attach).toBeUndefined();
    expect(networks.attach(bwrapSpec, hooks[2]).attach).toBeUndefined();
  });

  it('required: refuses to start without slirp4netns, naming the outbound hooks and why', () => {
    expect(() => start('required', true, noSlirp)).toThrow(
      /server\.sandbox is required but hooks with sandbox\.network: outbound \(acme\/api\).*slirp4netns is not on PATH/,
    );
  });

  it('required: refuses to start without network namespaces, naming every hook that needs one', () => {
    expect(() => start('required', 'Operation not permitted')).toThrow(
      /acme\/api, acme\/offline.*Operation not permitted/,
    );
  });

  it('auto: starts with a loud warning, and those hooks share the host network', () => {
    const { networks, logs } = start('auto', true, noSlirp);
    const warned = logs.lines.find((l) => l.msg.startsWith('SANDBOX NETWORK UNAVAILABLE'));
    expect(warned).toMatchObject({ hooks: ['acme/api'], reason: NO_SLIRP });
    expect(networks.sharesHost(hooks[0])).toBe(true);
    expect(networks.sharesHost(hooks[1])).toBe(false);
  });
});
