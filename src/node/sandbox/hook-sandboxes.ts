import type { SpawnSpec } from '../../backends/types.js';
import type { GatewayConfig, HookRuntime } from '../../config/runtime.js';
import type { Logger } from '../../server/logger.js';
import { resolvePath } from '../config-loader.js';
import { hookNetworks } from './hook-networks.js';
import { hookLimiter } from './hook-limits.js';
import { deniedToSandboxUser, detectSandbox, hookOwnPaths, planSandbox, wrapInSandbox } from './sandbox.js';

type StdioBackendDoc = Extract<HookRuntime['backend'], { type: 'stdio' }>;

/** The spawn wrapper of each hook (undefined: spawn it as it is), and what each hook's view covers. */
export interface HookSandboxes {
  (hook: HookRuntime): ((spec: SpawnSpec) => SpawnSpec) | undefined;
  /**
   * The paths covered in `hook`'s view as planned now from this config (its file and `file:`
   * secrets, other tenants' paths that fall inside the view); [] when hooks run unsandboxed. A
   * reload compares them to restart a running hook whose view the new config changes.
   */
  covered(hook: HookRuntime): string[];
}

const unsandboxed: HookSandboxes = Object.assign(() => undefined, { covered: () => [] });

/**
 * Applies `server.sandbox` to the config's stdio hooks: probes bubblewrap once, says loudly at
 * startup when hooks will run unsandboxed, refuses to start when `required` cannot be met, and
 * returns the spawn wrapper for each hook (undefined: spawn it as it is).
 */
export function hookSandboxes(
  config: GatewayConfig,
  baseDir: string,
  privatePaths: readonly string[],
  log: Logger,
): HookSandboxes {
  const stdio = [...config.tenants.values()].flatMap((t) =>
    [...t.hooks.values()].filter((h) => h.backend.type === 'stdio'),
  );
  const setting = config.server.sandbox;
  if (stdio.length === 0) return unsandboxed;
  if (setting === 'off') {
    log.warn(
      { sandbox: 'off' },
      'server.sandbox is off: stdio hooks run as the gateway user and can read its environment, memory and files',
    );
    return unsandboxed;
  }
  const support = detectSandbox();
  if (!support.available) {
    if (setting === 'required')
      throw new Error(`server.sandbox is required but bubblewrap cannot be used: ${support.reason}`);
    log.warn(
      { sandbox: 'unavailable', reason: support.reason },
      'SANDBOX UNAVAILABLE: stdio hooks run unsandboxed as the gateway user and can read its environment ' +
        '(secrets included), memory and files; install bubblewrap (see docs/sandbox.md) or set ' +
        'server.sandbox: required to refuse to start',
    );
    return unsandboxed;
  }
  const networks = hookNetworks(
    stdio.map((h) => ({
      tenant: h.tenant,
      name: h.name,
      network: (h.backend as StdioBackendDoc).sandbox.network,
    })),
    setting,
    support,
    log,
  );
  log.info(
    {
      sandbox: 'bubblewrap',
      bwrap: support.bwrap,
      identity: support.identity.kind,
      tmp_sized: support.tmpSize === true,
    },
    'stdio hooks sandboxed',
  );
  const limiter = hookLimiter(
    stdio.map((h) => ({
      tenant: h.tenant,
      name: h.name,
      limits: (h.backend as StdioBackendDoc).sandbox.limits,
    })),
    setting,
    support.identity.kind,
    log,
  );

  const paths = (h: HookRuntime) => {
    const b = h.backend as StdioBackendDoc;
    const cwd = b.cwd ? resolvePath(baseDir, b.cwd) : baseDir;
    return {
      b,
      cwd,
      readPaths: b.sandbox.read_paths.map((p) => resolvePath(baseDir, p)),
      writePaths: b.sandbox.write_paths.map((p) => resolvePath(baseDir, p)),
    };
  };
  const ownedInput = (h: HookRuntime) => {
    const { b, cwd, readPaths, writePaths } = paths(h);
    return { command: b.command, cwd, explicitCwd: !!b.cwd, readPaths, writePaths };
  };
  // Foreign and private paths come from this config: a reload plans every hook again (and restarts
  // those whose view changed), so a tenant it adds is covered in the hooks already running.
  const plan = (hook: HookRuntime) => {
    const { b, cwd, readPaths, writePaths } = paths(hook);
    const foreignPaths = stdio
      .filter((h) => h.tenant !== hook.tenant)
      .flatMap((h) => hookOwnPaths(ownedInput(h)));
    return planSandbox(
      {
        command: b.command,
        cwd,
        env: b.env,
        readPaths,
        writePaths,
        network: networks.sharesHost(hook),
        privatePaths,
        foreignPaths,
      },
      support,
    );
  };
  const sandboxFor = (hook: HookRuntime) => {
    const { b, cwd } = paths(hook);
    if (b.inherit_env)
      log.warn(
        { tenant: hook.tenant, hook: hook.name },
        "inherit_env: the sandboxed hook gets the gateway's whole environment, secrets included",
      );
    // Planned at every spawn, not once: a deploy may put the command or its paths in place only
    // after the gateway started (the backend retries), and the view must follow what is there.
    let warnedDenied = '';
    return (spec: SpawnSpec) => {
      const policy = plan(hook);
      if (policy.identity.kind === 'setpriv') {
        const files = b.command.slice(1).map((a) => ({ path: resolvePath(cwd, a), write: false }));
        const wanted = [...files, ...policy.readOnly.map((path) => ({ path, write: false }))];
        const denied = deniedToSandboxUser([
          ...new Map(wanted.map((w) => [w.path, w])).values(),
          ...policy.writable.map((path) => ({ path, write: true })),
        ]);
        const key = denied.join('\n');
        if (denied.length > 0 && key !== warnedDenied)
          log.warn(
            { tenant: hook.tenant, hook: hook.name, denied },
            'the sandboxed hook runs as uid 65534, which cannot use these paths; it will likely fail to start',
          );
        warnedDenied = key;
      }
      const limited = { tenant: hook.tenant, name: hook.name, limits: b.sandbox.limits };
      const uid = limiter.uid(limited);
      // /tmp is memory: sized to the hook's memory limit, which a cgroup (where there is one)
      // counts it against as well.
      const tmpBytes = support.tmpSize ? b.sandbox.limits.memory_mb * 2 ** 20 : undefined;
      const sandboxed = wrapInSandbox(spec, {
        ...policy,
        ...(uid === undefined ? {} : { uid }),
        ...(tmpBytes === undefined ? {} : { tmpBytes }),
      });
      return limiter.limit(networks.attach(sandboxed, hook), limited);
    };
  };
  return Object.assign(sandboxFor, { covered: (hook: HookRuntime) => plan(hook).hide.map((h) => h.path) });
}
