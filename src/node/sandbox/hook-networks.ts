import type { SpawnSpec } from '../../backends/types.js';
import type { Logger } from '../../server/logger.js';
import type { SandboxSupport } from './sandbox.js';
import {
  detectOutbound,
  type OutboundSupport,
  type SandboxNetwork,
  SandboxNetworkError,
  withOutboundNetwork,
} from './sandbox-network.js';

export interface NetworkedHook {
  tenant: string;
  name: string;
  network: SandboxNetwork;
}

/** Each sandboxed hook's network as this host can give it (src/node/sandbox/sandbox-network.ts). */
export interface HookNetworks {
  /** The hook gets the host's network namespace (wrapInSandbox's `network: true`). */
  sharesHost(hook: { tenant: string; name: string }): boolean;
  /** The bwrap spec of one spawn, with the outbound network attached where the hook gets one. */
  attach(spec: SpawnSpec, hook: { tenant: string; name: string }): SpawnSpec;
}

/**
 * Applies `sandbox.network` to the config's sandboxed hooks: names the hooks given the host network
 * (`host`, the escape hatch) at startup, and, when a network namespace or slirp4netns cannot be had
 * here, refuses to start under `server.sandbox: required` or warns loudly under `auto` (those hooks
 * then share the host network, as unsandboxed ones would).
 */
export function hookNetworks(
  hooks: readonly NetworkedHook[],
  setting: 'auto' | 'required',
  support: SandboxSupport & { available: true },
  log: Logger,
  outbound: () => OutboundSupport = detectOutbound,
): HookNetworks {
  const key = (h: { tenant: string; name: string }) => `${h.tenant}/${h.name}`;
  const names = (mode: SandboxNetwork) => hooks.filter((h) => h.network === mode).map(key);
  const shared = new Set(names('host'));
  if (shared.size > 0)
    log.warn(
      { sandbox: 'host-network', hooks: [...shared] },
      "sandbox.network: host: these hooks share the host's network and reach every service on its " +
        'loopback (the gateway, its Redis, other local listeners)',
    );

  const unavailable = (modes: string, hooksOf: string[], reason: string) => {
    if (setting === 'required')
      throw new SandboxNetworkError(
        'NETWORK_UNAVAILABLE',
        `server.sandbox is required but hooks with sandbox.network: ${modes} (${hooksOf.join(', ')}) cannot get a network of their own: ${reason}`,
      );
    log.warn(
      { sandbox: 'shared-network', hooks: hooksOf, reason },
      `SANDBOX NETWORK UNAVAILABLE: hooks with sandbox.network: ${modes} share the host network and ` +
        'reach every service on its loopback; install what is missing (docs/sandbox.md) or set ' +
        'server.sandbox: required to refuse to start',
    );
    for (const h of hooksOf) shared.add(h);
  };

  const own = hooks.filter((h) => h.network !== 'host').map(key);
  if (own.length > 0 && support.networkIsolation !== true)
    unavailable('none/outbound', own, support.networkIsolation);
  let slirp4netns: string | undefined;
  const wantOutbound = names('outbound').filter((h) => !shared.has(h));
  if (wantOutbound.length > 0) {
    const found = outbound();
    if (found.available) slirp4netns = found.slirp4netns;
    else unavailable('outbound', wantOutbound, found.reason);
  }
  const modeOf = new Map(hooks.map((h) => [key(h), h.network]));

  return {
    sharesHost: (hook) => shared.has(key(hook)),
    attach: (spec, hook) =>
      modeOf.get(key(hook)) === 'outbound' && !shared.has(key(hook)) && slirp4netns
        ? withOutboundNetwork(spec, slirp4netns, support.identity.kind)
        : spec,
  };
}
