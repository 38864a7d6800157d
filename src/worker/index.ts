/**
 * The Cloudflare Workers entry (wrangler.toml `main`): the hookgate gateway with `module` and
 * `http` backends, configured by the HOOKGATE_CONFIG binding. See docs/workers.md.
 */
import { modules } from './modules.js';
import { createWorker, type WorkerEnv } from './worker.js';

export type { WorkerEnv };
/** The per-tenant limiter (wrangler.toml binds it as HOOKGATE_LIMITER). */
export { TenantLimiter } from './limiter.js';
/** The per-tenant approval requests (wrangler.toml binds it as HOOKGATE_APPROVALS). */
export { TenantApprovals } from './approvals-object.js';

export default createWorker({ modules }) satisfies ExportedHandler<WorkerEnv>;
