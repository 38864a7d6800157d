import type { HookRuntime } from '../../config/runtime.js';

/** The variable every host setup reads the hook's token from (the bridge's too). */
export { TOKEN_ENV } from '../../bridge/options.js';

/**
 * How much longer than the hook's own deadline a host should wait for the gateway: the gateway
 * answers by the hook's failure mode at the deadline, and that answer must arrive before the host
 * gives up with a failure of its own.
 */
export const GATEWAY_MARGIN_MS = 1000;

/** The hook's route as a host reaches it: `<base>/v1/tenants/<tenant>/hooks/<hook>[/<dialect>]`. */
export function hookRouteUrl(baseUrl: string, hook: HookRuntime, dialect?: string): string {
  const route = `${baseUrl.replace(/\/+$/, '')}/v1/tenants/${encodeURIComponent(hook.tenant)}/hooks/${encodeURIComponent(hook.name)}`;
  return dialect === undefined ? route : `${route}/${dialect}`;
}
