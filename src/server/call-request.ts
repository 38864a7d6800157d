import type { Principal } from '../auth/principal.js';
import type { HookRuntime } from '../config/runtime.js';
import type { CallContextIn, Gateway } from './gateway.js';

/**
 * One hook call on a call route (the native one, each host's), its caller already admitted, as the
 * route sees it whichever runtime adapter took the request: hono's (server/app.ts) or the Node
 * adapter's direct route (node/direct-call-route.ts). The route's work is written once against it.
 */
export interface AdmittedCall extends CallContextIn {
  readonly principal: Principal;
  readonly hook: HookRuntime;
  readonly requestId: string;
  /** The body as text, read within server.max_body_bytes (413 beyond). */
  text(): Promise<string>;
}

/**
 * A call route's answer: its JSON text (200), null for a notification (202), or a response of its
 * own (a 400 with a JSON-RPC error). A refusal (400, 413, 429) may also be thrown as an HTTPException.
 */
export type CallAnswer = string | null | Response;

export type CallRoute = (call: AdmittedCall, gateway: Gateway) => Promise<CallAnswer>;
