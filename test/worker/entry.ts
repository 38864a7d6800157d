/**
 * The Worker under test (vitest.workers.config.ts `main`): the production createWorker with the
 * production registry plus the test hook, and its log lines kept for assertions. The tests import
 * this module and get the very instance SELF/exports.default serves.
 */
import { WorkerEntrypoint } from 'cloudflare:workers';
import { modules } from '../../src/worker/modules.js';
import { createWorker, type WorkerEnv } from '../../src/worker/worker.js';
import { APPROVALS_BINDINGS } from './approvals-fixtures.js';
import { HOOK_MODULE } from './fixtures.js';
import { LIMITED_BINDINGS } from './limiter-fixtures.js';

export { TenantApprovals } from '../../src/worker/approvals-object.js';
export { TenantLimiter } from '../../src/worker/limiter.js';

export const logLines: string[] = [];

export const testModules = { ...modules, [HOOK_MODULE]: () => import('./hooks/tool-hook.js') };

export default createWorker({
  modules: testModules,
  sink: (line) => {
    logLines.push(line);
  },
}) satisfies ExportedHandler<WorkerEnv>;

/**
 * Two more gateways on the approvals config, each with its own broker and store (what two isolates
 * would have), served as entrypoints so every call to them is a request of its own: a call parked
 * through one and decided through the other meet only in the tenant's Durable Object.
 */
export const approvalLogLines: string[] = [];
const approvalGateway = () =>
  createWorker({ modules: testModules, sink: (line) => approvalLogLines.push(line) });
const gatewayA = approvalGateway();
const gatewayB = approvalGateway();

export class ApprovalGatewayA extends WorkerEntrypoint<Cloudflare.Env> {
  override fetch(request: Request): Promise<Response> {
    return gatewayA.fetch(request, { ...this.env, ...APPROVALS_BINDINGS }, this.ctx);
  }
}

export class ApprovalGatewayB extends WorkerEntrypoint<Cloudflare.Env> {
  override fetch(request: Request): Promise<Response> {
    return gatewayB.fetch(request, { ...this.env, ...APPROVALS_BINDINGS }, this.ctx);
  }
}

/** Two gateways whose tenant is limited (test/worker/limiter-requests.test.ts), served the same way. */
export const limitedLogLines: string[] = [];
const limitedGateway = () =>
  createWorker({ modules: testModules, sink: (line) => limitedLogLines.push(line) });
const limitedA = limitedGateway();
const limitedB = limitedGateway();

export class LimitedGatewayA extends WorkerEntrypoint<Cloudflare.Env> {
  override fetch(request: Request): Promise<Response> {
    return limitedA.fetch(request, { ...this.env, ...LIMITED_BINDINGS }, this.ctx);
  }
}

export class LimitedGatewayB extends WorkerEntrypoint<Cloudflare.Env> {
  override fetch(request: Request): Promise<Response> {
    return limitedB.fetch(request, { ...this.env, ...LIMITED_BINDINGS }, this.ctx);
  }
}
